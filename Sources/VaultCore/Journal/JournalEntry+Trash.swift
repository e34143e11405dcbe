/// The bytes of the entries of Recently Deleted (docs/FORMAT.md, "Journal entries"): a
/// `trashed` entry is the id, the stamp (8) and whether the photo was moved there (1) or
/// brought back (0); a `spaceSetting` entry is the setting's code (1), the stamp (8) and
/// its value (4).
extension JournalEntry {
  static let trashedLength = 1 + BlobID.length + 8 + 1
  static let spaceSettingLength = 1 + 1 + 8 + 4

  static func encodeTrashed(_ id: BlobID, trashed: Bool, stamp: Int64, into output: inout ByteWriter) {
    output.byte(TypeCode.trashed.rawValue)
    output.bytes(id.bytes)
    output.int64(stamp)
    output.byte(trashed ? 1 : 0)
  }

  static func encodeSpaceSetting(_ setting: SpaceSetting, stamp: Int64, into output: inout ByteWriter) {
    output.byte(TypeCode.spaceSetting.rawValue)
    output.byte(setting.code)
    output.int64(stamp)
    output.uint32(setting.value)
  }

  /// A `trashed` entry after its type byte.
  static func decodeTrashed(from input: inout ByteReader, latestStamp: Int64) throws(Malformed)
    -> JournalEntry
  {
    guard let id = input.blobID(), let stamp = input.int64(), let trashed = input.byte(), trashed <= 1 else {
      throw Malformed("is a malformed recently deleted mark")
    }
    guard stamp <= latestStamp else { throw Malformed(futureStamp) }
    return .trashed(id, trashed: trashed == 1, stamp: stamp)
  }

  /// A `spaceSetting` entry after its type byte.
  static func decodeSpaceSetting(from input: inout ByteReader, latestStamp: Int64) throws(Malformed)
    -> JournalEntry
  {
    guard let code = input.byte(), let stamp = input.int64(), let value = input.uint32(),
      let setting = SpaceSetting(code: code, value: value)
    else { throw Malformed("is a malformed space setting") }
    guard stamp <= latestStamp else { throw Malformed(futureStamp) }
    return .spaceSetting(setting, stamp: stamp)
  }
}
