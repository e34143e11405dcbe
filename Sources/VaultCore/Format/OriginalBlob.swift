import Foundation

/// The plaintext of an original's blob: a 4-byte big-endian length, the photo's record as
/// JSON, then the original file byte for byte, and in version 2 the padding (docs/FORMAT.md,
/// "Photo blobs"). The record's `bytes` says where the original ends and the padding begins.
enum OriginalBlob {
  /// Records are small; a larger length is damage, not a record.
  static let recordSizeLimit = 1 << 20

  static func header(for record: PhotoRecord) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var json = try encoder.encode(record)
    defer { json.wipe() }
    var header = [UInt8]()
    header.reserveCapacity(LengthPrefixedPayload.lengthSize + json.count)  // never grown, so never copied
    header += LengthPrefixedPayload.lengthBytes(json.count)
    header.append(contentsOf: json)
    return header
  }
}

/// Reads an original's blob: first its record, then its content, chunk by chunk.
final class OriginalBlobReader {
  let record: PhotoRecord
  private let reader: BlobReader
  private let master: MasterKey

  init(path: String, id: BlobID, master: MasterKey, what: String) throws {
    self.master = master
    reader = try BlobReader(
      path: path, kind: .original, key: master.blobKey(kind: .original, id: id), what: what)
    let length = try LengthPrefixedPayload.readLength(from: reader)
    guard length > 0, length <= OriginalBlob.recordSizeLimit else {
      throw VaultError.damagedBlob(what: what, reason: "bad record length \(length)")
    }
    var json = try reader.readExactly(length)
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
    self.record = record
  }

  /// Hands the original's bytes to `consume` chunk by chunk, then checks that the blob
  /// ended properly (after canonical padding, in version 2) and that size and content hash
  /// match the record. `consume` must treat anything it received as unconfirmed until this
  /// returns.
  func readContent(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
    let hasher = ContentHasher(key: master.contentHashKey())
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
        what: reader.what, reason: "holds \(total) bytes, its record says \(record.bytes)")
    }
    if padded { try reader.readPadding() }
    guard hasher.finish() == record.contentHash else {
      throw VaultError.damagedBlob(what: reader.what, reason: "its content does not match its hash")
    }
  }
}
