import Foundation

// Reading and writing a photo's encrypted original and thumbnail.
extension SpaceBlobs {
  /// The decrypted thumbnail of a photo (a JPEG); the caller wipes it.
  func thumbnail(of record: PhotoRecord) throws -> [UInt8] {
    try readingInPlace {
      let reader = try BlobReader(
        path: thumbPath(record.id), kind: .thumbnail, key: master.blobKey(kind: .thumbnail, id: record.id),
        what: "thumbnail of photo '\(record.name)' (\(Space.thumbFolder)/\(record.id))")
      return try ThumbnailBlob.read(from: reader)
    }
  }

  /// Encrypts a thumbnail into a temporary file in `Thumb/`, to be moved into place; flushed
  /// unless the caller flushes it later (the importer, off its decode threads).
  func sealThumbnail(_ jpeg: [UInt8], id: BlobID, flush: Bool = true) throws -> TemporaryFile {
    let file = try TemporaryFile(in: thumbDirectory)
    let writer = try BlobWriter(kind: .thumbnail, key: master.blobKey(kind: .thumbnail, id: id), output: file)
    try ThumbnailBlob.write(jpeg, to: writer)
    try writer.finish()
    if flush { try file.sync() }
    return file
  }

  /// A photo's original, decrypted whole into memory (never to disk), once every byte of it
  /// has authenticated and its content hash matches its record. The caller makes sure the
  /// record's size is one it can hold.
  func original(of record: PhotoRecord) throws -> PlaintextBytes {
    try readingInPlace { try decryptOriginal(record) }
  }

  private func decryptOriginal(_ record: PhotoRecord) throws -> PlaintextBytes {
    let reader = try openOriginal(record)
    guard let count = Int(exactly: record.bytes), count >= 0 else {
      throw VaultError.damagedBlob(what: describe(record), reason: "its size \(record.bytes) is out of range")
    }
    let plaintext = PlaintextBytes(count: count)
    var filled = 0
    try reader.readContent { chunk in
      // A version-1 blob is read to its end before its size is checked.
      guard chunk.count <= count - filled else {
        throw VaultError.damagedBlob(
          what: describe(record), reason: "holds more than the \(record.bytes) bytes its record says")
      }
      guard let bytes = chunk.baseAddress else { return }
      UnsafeMutableRawPointer(plaintext.pinned.buffer.baseAddress! + filled).copyMemory(
        from: bytes, byteCount: chunk.count)
      filled += chunk.count
    }
    return plaintext
  }

  /// Opens a photo's original for reading ranges of it, once its record matches `record`;
  /// with `recordCheckedAtEnd`, a version-3 blob's record is checked when a read first
  /// reaches the original's end, not on opening (one disk read less for `vault mount`).
  /// `blob`, if given, is where its blob is read from (`originalBlobReadingAhead`).
  func originalRanges(
    of record: PhotoRecord, recordCheckedAtEnd: Bool = false, in blob: (any BlobSource)? = nil
  ) throws -> OriginalRangeReader {
    try readingInPlace {
      OriginalRangeReader(try openOriginal(record, checkedAtEnd: recordCheckedAtEnd, in: blob))
    }
  }

  /// The blob of a photo's original, for several readers at once that read it whole (the
  /// mount's readers of one open file): a local blob read in big windows, ahead of them
  /// (`ReadAheadBlobFile`); an offloaded one as it is.
  func originalBlobReadingAhead(_ record: PhotoRecord) throws -> any BlobSource {
    let blob = try readingInPlace { try originalBlob(record) }
    guard let local = blob as? LocalBlobFile else { return blob }
    return ReadAheadBlobFile(local, path: photoPath(record.id))
  }

  /// Opens a photo's original for reading (from `blob` if given, else from its file): its
  /// record is checked against `record` (on opening, or with `checkedAtEnd` as
  /// `OriginalBlobReader` says).
  func openOriginal(_ record: PhotoRecord, checkedAtEnd: Bool = false, in blob: (any BlobSource)? = nil)
    throws -> OriginalBlobReader
  {
    let reader = try OriginalBlobReader(
      blob: blob ?? originalBlob(record), id: record.id, master: master, what: describe(record),
      indexed: checkedAtEnd ? record : nil)
    guard reader.record.id == record.id, reader.record.contentHash == record.contentHash,
      reader.record.bytes == record.bytes
    else {
      throw VaultError.damagedBlob(what: describe(record), reason: "its record does not match the index")
    }
    return reader
  }
}

// The space reads and writes its blobs through `blobs`.
extension Space {
  /// Describes a photo in error messages.
  func describe(_ record: PhotoRecord) -> String { blobs.describe(record) }

  /// The decrypted thumbnail of a photo (a JPEG); the caller wipes it.
  public func thumbnail(of record: PhotoRecord) throws -> [UInt8] { try blobs.thumbnail(of: record) }

  func sealThumbnail(_ jpeg: [UInt8], id: BlobID, flush: Bool = true) throws -> TemporaryFile {
    try blobs.sealThumbnail(jpeg, id: id, flush: flush)
  }

  /// A photo's original, decrypted whole into memory (see `SpaceBlobs.original`).
  public func original(of record: PhotoRecord) throws -> PlaintextBytes { try blobs.original(of: record) }

  /// Opens a photo's original for reading ranges of it (see `SpaceBlobs.originalRanges`).
  public func originalRanges(of record: PhotoRecord, recordCheckedAtEnd: Bool = false) throws
    -> OriginalRangeReader
  {
    try blobs.originalRanges(of: record, recordCheckedAtEnd: recordCheckedAtEnd)
  }

  func openOriginal(_ record: PhotoRecord, checkedAtEnd: Bool = false) throws -> OriginalBlobReader {
    try blobs.openOriginal(record, checkedAtEnd: checkedAtEnd)
  }

  /// How `vault mount` opens originals, on FUSE's threads.
  package var originalOpener: OriginalOpener { OriginalOpener(blobs: blobs) }
}
