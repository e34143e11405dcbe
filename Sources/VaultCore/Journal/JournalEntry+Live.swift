/// The bytes of a `liveIdentifier` entry (docs/FORMAT.md, "Journal entries"): the id, the
/// identifier's length (1 byte, 1 to `liveIdentifierLimit`), the identifier (printable ASCII).
extension JournalEntry {
  /// Bytes of a `liveIdentifier` entry besides its identifier, type byte included; the
  /// identifier's length is the last of them.
  static let liveIdentifierFixedLength = 1 + BlobID.length + 1
  /// The most bytes of an identifier kept (Apple's are UUIDs, 36 characters).
  static let liveIdentifierLimit = 64

  /// An identifier as an entry keeps it: printable ASCII, at most `liveIdentifierLimit`
  /// bytes; empty when it is neither (such an identifier is not recorded).
  static func liveIdentifierBytes(_ identifier: String) -> ArraySlice<UInt8> {
    let bytes = Array(identifier.utf8)[...]
    guard !bytes.isEmpty, bytes.count <= liveIdentifierLimit, bytes.allSatisfy(isIdentifierByte) else {
      return []
    }
    return bytes
  }

  /// Whether an identifier would be kept whole by its entry.
  static func isRecordableLiveIdentifier(_ identifier: String) -> Bool {
    !liveIdentifierBytes(identifier).isEmpty
  }

  private static func isIdentifierByte(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }

  static func encodeLiveIdentifier(_ identifier: String, of id: BlobID, into output: inout ByteWriter) {
    let bytes = liveIdentifierBytes(identifier)
    output.byte(TypeCode.liveIdentifier.rawValue)
    output.bytes(id.bytes)
    output.byte(UInt8(bytes.count))
    output.bytes(bytes)
  }

  /// A `liveIdentifier` entry after its type byte.
  static func decodeLiveIdentifier(from input: inout ByteReader) throws(Malformed) -> JournalEntry {
    guard let id = input.blobID(), let length = input.byte(), length > 0, Int(length) <= liveIdentifierLimit,
      let bytes = input.slice(Int(length)), bytes.allSatisfy(isIdentifierByte)
    else { throw Malformed("is a malformed live photo identifier") }
    return .liveIdentifier(id, identifier: String(decoding: bytes, as: UTF8.self))
  }
}
