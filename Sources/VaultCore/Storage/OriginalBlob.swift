import Foundation

/// The plaintext of an original's blob: a 4-byte big-endian length, the photo's record as
/// JSON, then the original file byte for byte (docs/FORMAT.md, "Photo blobs").
enum OriginalBlob {
  /// Records are small; a larger length is damage, not a record.
  static let recordSizeLimit = 1 << 20

  static func header(for record: PhotoRecord) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var json = try encoder.encode(record)
    defer { json.wipe() }
    let length = UInt32(json.count)
    var header = [UInt8]()
    header.reserveCapacity(4 + json.count)  // never grown, so never copied
    header += [
      UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
    ]
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
    let lengthBytes = try reader.readExactly(4)
    let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
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
    self.record = record
  }

  /// Hands the original's bytes to `consume` chunk by chunk, then checks that the blob
  /// ended properly and that size and content hash match the record. `consume` must treat
  /// anything it received as unconfirmed until this returns.
  func readContent(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
    let hasher = ContentHasher(key: master.contentHashKey())
    var total: Int64 = 0
    while let bytes = try reader.nextBytes() {
      hasher.update(bytes)
      total += Int64(bytes.count)
      try consume(bytes)
    }
    guard total == record.bytes else {
      throw VaultError.damagedBlob(
        what: reader.what, reason: "holds \(total) bytes, its record says \(record.bytes)")
    }
    guard hasher.finish() == record.contentHash else {
      throw VaultError.damagedBlob(what: reader.what, reason: "its content does not match its hash")
    }
  }
}
