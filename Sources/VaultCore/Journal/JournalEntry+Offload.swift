/// The bytes of an `offloadRemote` entry (docs/FORMAT.md, "Offloaded originals"): the stamp
/// (8), the remote's length (2, 1 to `offloadRemoteLimit`), the remote (UTF-8), as the user
/// typed it to `offload`. It lives only in the encrypted journal: a connection string may
/// carry a user or host name.
extension JournalEntry {
  /// Bytes of an `offloadRemote` entry before the remote, type byte included; the remote's
  /// length is the last two of them.
  static let offloadRemoteFixedLength = 1 + 8 + 2
  /// The most bytes of a remote an entry holds (rclone's paths and connection strings are
  /// far shorter; a longer one is refused before anything is offloaded).
  package static let offloadRemoteLimit = 4096

  static func encodeOffloadRemote(_ remote: String, stamp: Int64, into output: inout ByteWriter) {
    let bytes = Array(remote.utf8).prefix(offloadRemoteLimit)
    output.byte(TypeCode.offloadRemote.rawValue)
    output.int64(stamp)
    output.uint16(UInt16(bytes.count))
    output.bytes(bytes)
  }

  /// An `offloadRemote` entry after its type byte.
  static func decodeOffloadRemote(from input: inout ByteReader, latestStamp: Int64) throws(Malformed)
    -> JournalEntry
  {
    guard let stamp = input.int64(), let length = input.uint16(), length > 0,
      Int(length) <= offloadRemoteLimit, let bytes = input.slice(Int(length)), let remote = utf8String(bytes)
    else { throw Malformed("is a malformed offload remote") }
    guard stamp <= latestStamp else { throw Malformed(futureStamp) }
    return .offloadRemote(remote, stamp: stamp)
  }
}
