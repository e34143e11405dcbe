/// A payload that does not say where it ends by itself (a JPEG, JSON), preceded by its
/// length as 4 bytes, big-endian, so that a reader of a padded blob knows where the
/// padding starts (docs/FORMAT.md, "Blobs").
package enum LengthPrefixedPayload {
  static let lengthSize = 4

  /// The 4-byte big-endian encoding of `length`.
  package static func lengthBytes(_ length: Int) -> [UInt8] {
    precondition(length >= 0 && length <= Int(UInt32.max), "a length-prefixed payload is under 4 GiB")
    return withUnsafeBytes(of: UInt32(length).bigEndian) { Array($0) }
  }

  /// Reads a 4-byte big-endian length from `reader`.
  static func readLength(from reader: BlobReader) throws -> Int {
    try reader.readExactly(lengthSize).reduce(0) { $0 << 8 | Int($1) }
  }

  /// Writes `payload`'s length, then `payload`; the writer's `finish()` pads after it.
  static func write(_ payload: [UInt8], to writer: BlobWriter) throws {
    try writer.write(lengthBytes(payload.count))
    try writer.write(payload)
  }

  /// Reads a length (more than `limit` is damage), that many bytes, then checks the
  /// padding up to the end of the blob. The caller wipes the result.
  static func read(from reader: BlobReader, limit: Int) throws -> [UInt8] {
    let length = try readLength(from: reader)
    guard length <= limit else {
      throw VaultError.damagedBlob(what: reader.what, reason: "is unexpectedly large")
    }
    var payload = try reader.readExactly(length)
    do {
      try reader.readPadding()
    } catch {
      payload.wipe()
      throw error
    }
    return payload
  }
}
