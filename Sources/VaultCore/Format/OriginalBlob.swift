import Foundation

/// The plaintext of an original's blob (docs/FORMAT.md, "Photo blobs"). Version 3, what
/// vault writes: the original file byte for byte, padding, then the photo's record as JSON
/// and its length (the blob's trailer), so that a file is encrypted as it arrives and its
/// record, with the hash computed meanwhile, is written last. Versions 1 and 2, still read:
/// a 4-byte big-endian length, the record, the original, and in version 2 the padding. The
/// record's `bytes` says where the original ends and the padding begins.
package enum OriginalBlob {
  /// Records are small; a larger length is damage, not a record.
  package static let recordSizeLimit = 1 << 20

  /// The record as the JSON a blob holds.
  package static func recordJSON(_ record: PhotoRecord) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var json = try encoder.encode(record)
    defer { json.wipe() }
    return Array(json)
  }

  /// The record as versions 1 and 2 begin with it: its length, then its JSON.
  package static func header(for record: PhotoRecord) throws -> [UInt8] {
    var json = try recordJSON(record)
    defer { json.wipe() }
    var header = [UInt8]()
    header.reserveCapacity(LengthPrefixedPayload.lengthSize + json.count)  // never grown, so never copied
    header += LengthPrefixedPayload.lengthBytes(json.count)
    header.append(contentsOf: json)
    return header
  }
}

/// Reads an original's blob: its record first, then its content, whole (checked against
/// the record's size and hash) or any range of it (`read(at:into:)`).
package final class OriginalBlobReader {
  /// Originals from this size up are decrypted ahead on a thread of their own when read
  /// whole (`ChunkReadAhead`).
  static let readAheadLength = 16 << 20

  package let record: PhotoRecord
  let what: String
  private let master: MasterKey
  private var source: Source
  /// The index's record of a version-3 blob opened without reading its trailer: checked
  /// against the trailer when a read first reaches the original's end.
  private var recordToCheck: PhotoRecord?

  private enum Source {
    /// Version 3: any chunk decrypts on its own.
    case seekable(SeekableBlobReader)
    /// Versions 1 and 2, a secretstream read from its start; `reopen` gives a new one at
    /// the content's first byte, and `contentStart` is that byte's place in the plaintext.
    case stream(BlobReader, contentStart: Int, reopen: () throws -> BlobReader)
  }

  /// Opens the blob of photo `id` at `path` (see `init(blob:…)`).
  package convenience init(
    path: String, id: BlobID, master: MasterKey, what: String, indexed: PhotoRecord? = nil
  )
    throws
  {
    try self.init(
      blob: LocalBlobFile.open(path, what: what), id: id, master: master, what: what, indexed: indexed)
  }

  /// Opens the blob of photo `id` that `blob` holds. With `indexed` (the index's record of
  /// it), a version-3 blob's trailer (in its last chunk, one more read) is not read now:
  /// `record` is `indexed` until a read reaches the original's end, which checks the trailer
  /// first. Every byte handed out still comes from a chunk authenticated at its place.
  package init(
    blob: any BlobSource, id: BlobID, master: MasterKey, what: String, indexed: PhotoRecord? = nil
  ) throws {
    self.master = master
    self.what = what
    let key = master.blobKey(kind: .original, id: id)
    if let reader = try SeekableBlobReader.openIfSeekable(
      source: blob, kind: .original, key: key, what: what,
      trailerLimit: indexed == nil ? OriginalBlob.recordSizeLimit : nil)
    {
      if let indexed {
        record = indexed
        recordToCheck = indexed
      } else {
        record = try Self.decodeRecord(reader.trailer, id: id, what: what)
        try reader.checkLength(payloadLength: Int(record.bytes))
      }
      source = .seekable(reader)
    } else {
      let open = { () throws -> (BlobReader, PhotoRecord) in
        let reader = try BlobReader(source: blob, kind: .original, key: key, what: what)
        return (reader, try Self.readRecordFirst(from: reader, id: id))
      }
      let (reader, record) = try open()
      self.record = record
      source = .stream(reader, contentStart: reader.position, reopen: { try open().0 })
    }
  }

  /// Versions 1 and 2 begin with the record's length and JSON.
  private static func readRecordFirst(from reader: BlobReader, id: BlobID) throws -> PhotoRecord {
    let length = try LengthPrefixedPayload.readLength(from: reader)
    guard length > 0, length <= OriginalBlob.recordSizeLimit else {
      throw VaultError.damagedBlob(what: reader.what, reason: "bad record length \(length)")
    }
    var json = try reader.readExactly(length)
    defer { json.wipe() }
    return try decodeRecord(json, id: id, what: reader.what)
  }

  /// The record in `json`, which must be one vault writes, of the photo `id`.
  private static func decodeRecord(_ json: [UInt8], id: BlobID, what: String) throws -> PhotoRecord {
    var json = json
    defer { json.wipe() }
    let record: PhotoRecord
    do {
      record = try json.withUnsafeMutableBytes { buffer in
        try JSONDecoder().decode(
          PhotoRecord.self,
          from: Data(bytesNoCopy: buffer.baseAddress!, count: buffer.count, deallocator: .none))
      }
    } catch DecodingError.dataCorrupted(let context)
      where context.debugDescription == BlobID.malformedDescription
    {
      throw VaultError.damagedBlob(what: what, reason: "its record has a \(BlobID.malformedDescription)")
    } catch {
      throw VaultError.damagedBlob(what: what, reason: "its record does not parse")
    }
    guard record.id == id else {
      throw VaultError.damagedBlob(what: what, reason: "it holds another photo's record")
    }
    if let problem = record.outOfRange {
      throw VaultError.damagedBlob(what: what, reason: "its record is not one vault writes: \(problem)")
    }
    return record
  }

  /// Hands the original's bytes to `consume` chunk by chunk, then checks that the blob
  /// ended properly (after canonical padding, in versions 2 and 3) and that size and
  /// content hash match the record. `consume` must treat anything it received as
  /// unconfirmed until this returns.
  package func readContent(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
    let hasher = ContentHasher(key: master.contentHashKey())
    switch source {
    case .seekable(let reader):
      let count = Int(record.bytes)
      // A big original (a video) is decrypted ahead on one thread and hashed on another
      // while its pieces are written here; a photo's few chunks are not worth threads.
      if count >= Self.readAheadLength {
        try reader.forEachPieceReadingAhead(of: 0..<count, alongside: hasher.update, consume)
      } else {
        try reader.forEachPiece(of: 0..<count) { piece in
          hasher.update(piece)
          try consume(piece)
        }
      }
      try reader.checkPadding(payloadLength: count)
    case .stream(let reader, _, _):
      try readStreamContent(reader, hasher: hasher, consume)
    }
    guard hasher.finish() == record.contentHash else {
      throw VaultError.damagedBlob(what: what, reason: "its content does not match its hash")
    }
  }

  private func readStreamContent(
    _ reader: BlobReader, hasher: ContentHasher, _ consume: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    // A version-1 blob ends with the original, so all of it is read to learn its size; in
    // version 2 the record's size is where the padding starts.
    let padded = reader.version == BlobFormat.paddedVersion
    var total: Int64 = 0
    while !padded || total < record.bytes,
      let bytes = try reader.nextBytes(atMost: padded ? Int(clamping: record.bytes - total) : .max)
    {
      hasher.update(bytes)
      total += Int64(bytes.count)
      try consume(bytes)
    }
    guard total == record.bytes else {
      throw VaultError.damagedBlob(
        what: what, reason: "holds \(total) bytes, its record says \(record.bytes)")
    }
    if padded { try reader.readPadding() }
  }

  /// Copies up to `buffer.count` bytes of the original from `offset` into `buffer`; the
  /// count copied, short only at the original's end (0 from there on). In version 3 only
  /// the chunks that cover the range are read, each authenticated as the chunk of its place
  /// in this blob; versions 1 and 2 are read from the start (again, for an `offset` behind
  /// the last read). The content hash is not checked here: that takes the whole original.
  package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    precondition(offset >= 0, "a place in the original")
    let count = Int(clamping: max(0, min(Int64(buffer.count), record.bytes - offset)))
    guard count > 0 else { return 0 }
    let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
    switch source {
    case .seekable(let reader):
      if let indexed = recordToCheck, offset + Int64(count) == record.bytes {
        try checkTrailer(of: reader, against: indexed)
        recordToCheck = nil
      }
      try reader.read(at: Int(offset), into: target)
    case .stream(var reader, let contentStart, let reopen):
      if reader.position - contentStart > offset {
        reader = try reopen()
        source = .stream(reader, contentStart: contentStart, reopen: reopen)
      }
      try readStream(reader, from: contentStart + Int(offset), into: target)
    }
    return count
  }

  /// Reads the trailer of a blob opened without it: its record must be the index's one.
  private func checkTrailer(of reader: SeekableBlobReader, against indexed: PhotoRecord) throws {
    try reader.loadTrailer(limit: OriginalBlob.recordSizeLimit)
    let stored = try Self.decodeRecord(reader.trailer, id: indexed.id, what: what)
    try reader.checkLength(payloadLength: Int(stored.bytes))
    guard stored.contentHash == indexed.contentHash, stored.bytes == indexed.bytes else {
      throw VaultError.damagedBlob(what: what, reason: "its record does not match the index")
    }
  }

  /// Skips `reader` forward to plaintext place `start`, then fills `buffer`.
  private func readStream(_ reader: BlobReader, from start: Int, into buffer: UnsafeMutableRawBufferPointer)
    throws
  {
    var filled = 0
    while filled < buffer.count {
      let skipping = reader.position < start
      let wanted = skipping ? start - reader.position : buffer.count - filled
      guard let bytes = try reader.nextBytes(atMost: wanted) else {
        throw VaultError.damagedBlob(what: what, reason: "ends too early")
      }
      if !skipping {
        (buffer.baseAddress! + filled).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        filled += bytes.count
      }
    }
  }
}
