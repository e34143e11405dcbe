/// The bytes of a `shownName` entry (docs/FORMAT.md, "Journal entries"): the id, the stamp
/// (8), the name's length (2, 1 to `PathComponent.maximumBytes`), the name (UTF-8).
extension JournalEntry {
  /// Bytes of a `shownName` entry before its name, type byte included; the name's length is
  /// the last two of them.
  static let shownNameFixedLength = 1 + BlobID.length + 8 + 2

  /// A name as an entry keeps it: a file name's bytes, at most `PathComponent.maximumBytes`
  /// (a name vault shows is made safe first, so it always fits).
  static func shownNameBytes(_ name: String) -> ArraySlice<UInt8> {
    Array(name.utf8).prefix(PathComponent.maximumBytes)
  }

  static func encodeShownName(_ name: String, of id: BlobID, stamp: Int64, into output: inout ByteWriter) {
    let bytes = shownNameBytes(name)
    output.byte(TypeCode.shownName.rawValue)
    output.bytes(id.bytes)
    output.int64(stamp)
    output.uint16(UInt16(bytes.count))
    output.bytes(bytes)
  }

  /// A `shownName` entry after its type byte; its stamp is checked by the caller.
  static func decodeShownName(from input: inout ByteReader) throws(Malformed) -> (BlobID, String, Int64) {
    guard let id = input.blobID(), let stamp = input.int64(), let length = input.uint16(), length > 0,
      Int(length) <= PathComponent.maximumBytes, let bytes = input.slice(Int(length)),
      let name = utf8String(bytes)
    else { throw Malformed("is a malformed shown name") }
    return (id, name, stamp)
  }
}
