import Foundation

// Checking one photo's blobs, shared by verify, repair and the tidy after killed writers.
extension SpaceVerifier {
  /// The state of one original: its record if it reads through to its last byte intact,
  /// and the details read from it when they were asked for.
  enum OriginalState {
    case intact(PhotoRecord, details: PhotoDetails?)
    case damaged(String)
    case missing
    /// An offloaded original whose remote could not be asked (`reason` names it): whether
    /// it is intact is not known.
    case unchecked(String)
  }
}

/// What checks one photo's blobs, on any thread (verify checks on all cores): values only,
/// never the space.
struct PhotoChecker: Sendable {
  let blobs: SpaceBlobs
  let thumbnailer: Thumbnailer
  /// The decoder helpers that read details (started when first needed: most runs need none).
  let decoders: DecoderPool
  /// Memory shared by the originals held whole at once while their details are read.
  let detailsMemory: MemoryBudget
  /// The remote's copies of offloaded originals, for the quick check.
  let remoteCopies: RemoteCopyListing

  /// At `.quick` depth an original whose header and record read is taken as intact. With
  /// `readingDetails` (at `.full` depth), the date taken and camera are read from the
  /// original as it is decrypted: the record's own when its import read them, else from
  /// the file, held whole in memory up to `PhotoImporter.inMemoryFileLimit` (larger JPEGs
  /// and PNGs from their first bytes, as on import; a larger HEIC, GIF, WebP, AVIF or video
  /// is left to be read when it is shown).
  func checkOriginal(
    id: BlobID, expected: PhotoRecord?, depth: VerifyDepth = .full, readingDetails: Bool = false
  ) -> SpaceVerifier.OriginalState {
    // An offloaded original is read from the remote, as deep as a local one; a quick check
    // compares its stub with the remote's listing.
    let place = blobs.place(of: id)
    guard place != .missing else { return .missing }
    if place == .remote, depth == .quick, let expected { return checkRemoteCopy(of: expected) }
    do {
      let reader = try OriginalBlobReader(
        blob: blobs.originalBlob(id: id, what: "Photo/\(id)"), id: id, master: blobs.master,
        what: "Photo/\(id)")
      if let expected,
        reader.record.contentHash != expected.contentHash || reader.record.bytes != expected.bytes
      {
        return .damaged("its record does not match the index")
      }
      guard depth == .full else { return .intact(reader.record, details: nil) }
      let recorded = PhotoDetails(of: reader.record)
      guard readingDetails, recorded.isEmpty, reader.record.bytes > 0 else {
        try reader.readContent { _ in }
        return .intact(reader.record, details: readingDetails ? recorded : nil)
      }
      let whole = reader.record.bytes <= PhotoImporter.inMemoryFileLimit
      if !whole && ![.jpeg, .png].contains(reader.record.format) {
        try reader.readContent { _ in }
        return .intact(reader.record, details: nil)
      }
      let length = whole ? Int(reader.record.bytes) : PhotoDetails.prefixLength
      let reserved = detailsMemory.reserve(length)
      defer { detailsMemory.release(reserved) }
      let file = PlaintextBytes(count: length)
      var filled = 0
      try reader.readContent { chunk in
        let taken = min(chunk.count, length - filled)
        guard taken > 0, let source = chunk.baseAddress else { return }
        UnsafeMutableRawPointer(file.pinned.buffer.baseAddress! + filled).copyMemory(
          from: source, byteCount: taken)
        filled += taken
      }
      // Read, in a decoder helper, once the whole original has authenticated.
      return .intact(reader.record, details: details(of: file.pinned, record: reader.record))
    } catch VaultError.remote(let error) where error.leavesTheFileUnknown {
      return .unchecked(error.description)
    } catch let error as VaultError {
      if case .damagedBlob(_, let reason) = error { return .damaged(reason) }
      return .damaged(error.description)
    } catch {
      return .damaged("\(error)")
    }
  }

  /// Whether the remote's copy of an offloaded original is the one its stub describes (its
  /// size and MD5, as the remote lists them).
  private func checkRemoteCopy(of record: PhotoRecord) -> SpaceVerifier.OriginalState {
    do {
      guard let stub = try blobs.stub(of: record.id, what: blobs.describe(record)) else { return .missing }
      if let problem = try remoteCopies.problem(with: stub, of: record.id) { return .damaged(problem) }
      return .intact(record, details: nil)
    } catch let VaultError.damagedBlob(_, reason) {
      return .damaged(reason)
    } catch let error as RemoteError where error.leavesTheFileUnknown {
      return .unchecked(error.description)
    } catch {
      return .damaged("\(error)")
    }
  }

  /// The details a decoder helper reads in `file` (the original, or the first bytes of a
  /// large JPEG or PNG); nil when the helper could not (it died, or overran): the
  /// original is intact all the same.
  private func details(of file: PinnedBytes, record: PhotoRecord) -> PhotoDetails? {
    let request = DecoderRequest(
      wants: [.details], thumbnailer: thumbnailer, format: record.format, name: blobs.describe(record),
      size: Int64(file.count), delivery: .bytes)
    return try? decoders.analyse(request, input: .bytes(file), name: blobs.describe(record)).details
  }

  /// At `.quick` depth only the thumbnail's header and first chunk are read.
  func checkThumbnail(_ record: PhotoRecord, depth: VerifyDepth = .full) -> String?? {
    guard fileExists(blobs.thumbPath(record.id)) else { return .some(nil) }
    do {
      switch depth {
      case .full:
        var bytes = try blobs.thumbnail(of: record)
        bytes.wipe()
      case .quick:
        let reader = try BlobReader(
          path: blobs.thumbPath(record.id), kind: .thumbnail,
          key: blobs.master.blobKey(kind: .thumbnail, id: record.id), what: "Thumb/\(record.id)")
        _ = try reader.nextBytes()
      }
      return nil
    } catch let VaultError.damagedBlob(_, reason) {
      return .some(reason)
    } catch {
      return .some("\(error)")
    }
  }
}
