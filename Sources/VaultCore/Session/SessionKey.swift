import Foundation

/// What `vault unlock` keeps of a space in the session keyring: enough to open that one
/// space without its password or a key derivation, for a while.
///
/// It keeps the password's wrapping key, not the master key: the space's own `key` file,
/// sealed under the wrapping key, then authenticates the session key each time it is used,
/// so that a key forged in the keyring (its name and tag are no secret) opens nothing.
///
/// The payload (docs/FORMAT.md, "Unlock once per session"):
/// `"VLTS"` ‖ version 2 ‖ tag (16) ‖ wrapping key (32) ‖ idle seconds (4) ‖
/// deadline (8, seconds since 1970); integers big-endian.
public final class SessionKey {
  /// The space's folder name: 32 lowercase hex digits.
  public let spaceTag: String
  /// Unwraps the space's master key from its key file, as the password's key would.
  let wrappingKey: SecureBytes
  public let lifetime: SessionLifetime
  /// Seconds since 1970 when the kernel drops the key unless it is used again; nil when
  /// it was read without being refreshed.
  public internal(set) var expires: Int64?

  static let magic = Array("VLTS".utf8)
  /// Version 1 kept the master key and a digest of the key file, which nothing could check
  /// the master key against: its payloads are dropped as stale.
  static let version: UInt8 = 2
  static let tagLength = 16
  static let wrappingKeyLength = 32
  static let payloadLength = magic.count + 1 + tagLength + wrappingKeyLength + 4 + 8

  init(spaceTag: String, wrappingKey: SecureBytes, lifetime: SessionLifetime) {
    precondition(wrappingKey.count == Self.wrappingKeyLength)
    self.spaceTag = spaceTag
    self.wrappingKey = wrappingKey
    self.lifetime = lifetime
  }

  /// The master key sealed in `keyFile`, if this key unwraps it: nil for a key file of
  /// another password, or a key that was never this space's.
  func unwrapMaster(keyFile: [UInt8]) -> MasterKey? {
    KeyWrap.unwrap(keyFile, with: wrappingKey)
  }

  /// The payload, in secure memory (it holds the wrapping key).
  func encoded() -> SecureBytes {
    let payload = SecureBytes(count: Self.payloadLength)
    var offset = 0
    func append(_ bytes: UnsafeRawBufferPointer) {
      (payload.pointer + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
      offset += bytes.count
    }
    (Self.magic + [Self.version]).withUnsafeBytes(append)
    // The tag is 32 hex digits of the space's own folder name, checked when it was opened.
    var tag = decodeHex(spaceTag)!
    tag.withUnsafeBytes(append)
    tag.wipe()
    append(UnsafeRawBufferPointer(start: wrappingKey.pointer, count: wrappingKey.count))
    withUnsafeBytes(of: UInt32(lifetime.idleSeconds).bigEndian, append)
    withUnsafeBytes(of: lifetime.deadline.bigEndian, append)
    precondition(offset == Self.payloadLength)
    return payload
  }

  /// Reads a payload; nil when it is not one this version wrote, or its deadline is not
  /// one an unlock before `now` could have set.
  static func decode(_ payload: SecureBytes, now: Int64 = SessionLifetime.now()) -> SessionKey? {
    guard payload.count == payloadLength else { return nil }
    let bytes = UnsafeRawBufferPointer(start: payload.pointer, count: payload.count)
    guard Array(bytes[0..<4]) == magic, bytes[4] == version else { return nil }
    var offset = 5
    func take(_ count: Int) -> UnsafeRawBufferPointer {
      defer { offset += count }
      return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }
    let tag = hexString(take(tagLength))
    let wrappingKey = SecureBytes(copying: take(wrappingKeyLength))
    let idle = take(4).reduce(0) { $0 << 8 | Int($1) }
    let deadline = take(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    guard (1...SessionLifetime.longestSeconds).contains(idle),
      SessionLifetime.isPlausible(deadline: deadline, at: now)
    else { return nil }
    return SessionKey(
      spaceTag: tag, wrappingKey: wrappingKey,
      lifetime: SessionLifetime(idleSeconds: idle, deadline: deadline))
  }
}
