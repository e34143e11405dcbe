import CSodium
import Foundation

/// A space's master key as `vault unlock` keeps it in the session keyring: enough to open
/// that one space without its password, for a while.
///
/// The payload (docs/FORMAT.md, "Unlock once per session"):
/// `"VLTS"` ‖ version 1 ‖ tag (16) ‖ master key (32) ‖ key-file digest (32) ‖
/// idle seconds (4) ‖ deadline (8, seconds since 1970); integers big-endian.
public final class SessionKey {
  /// The space's folder name: 32 lowercase hex digits.
  public let spaceTag: String
  let master: MasterKey
  /// BLAKE2b-256 of the space's `key` file when the key was kept: a space whose key file
  /// changed since (a new password, or a space made again) is not the one unlocked.
  let keyFileDigest: [UInt8]
  public let lifetime: SessionLifetime
  /// Seconds since 1970 when the kernel drops the key unless it is used again; nil when
  /// it was read without being refreshed.
  public internal(set) var expires: Int64?

  static let magic = Array("VLTS".utf8)
  static let version: UInt8 = 1
  static let tagLength = 16
  static let digestLength = 32
  static let payloadLength = magic.count + 1 + tagLength + MasterKey.length + digestLength + 4 + 8

  init(spaceTag: String, master: MasterKey, keyFileDigest: [UInt8], lifetime: SessionLifetime) {
    self.spaceTag = spaceTag
    self.master = master
    self.keyFileDigest = keyFileDigest
    self.lifetime = lifetime
  }

  /// The digest a space's key file is compared by (unkeyed BLAKE2b-256: the file is no secret).
  static func digest(ofKeyFile bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: digestLength)
    // It fails only for an output length outside 16...64 bytes.
    Sodium.check(
      crypto_generichash(&digest, digestLength, bytes, UInt64(bytes.count), nil, 0), "crypto_generichash")
    return digest
  }

  /// Whether `keyFile` is the key file this key was kept with.
  func matches(keyFile: [UInt8]) -> Bool {
    let digest = Self.digest(ofKeyFile: keyFile)
    return sodium_memcmp(digest, keyFileDigest, Self.digestLength) == 0
  }

  /// The payload, in secure memory (it holds the master key).
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
    append(UnsafeRawBufferPointer(start: master.key.pointer, count: MasterKey.length))
    keyFileDigest.withUnsafeBytes(append)
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
    let master = MasterKey(key: SecureBytes(copying: take(MasterKey.length)))
    let digest = Array(take(digestLength))
    let idle = take(4).reduce(0) { $0 << 8 | Int($1) }
    let deadline = take(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    guard (1...SessionLifetime.longestSeconds).contains(idle),
      SessionLifetime.isPlausible(deadline: deadline, at: now)
    else { return nil }
    return SessionKey(
      spaceTag: tag, master: master, keyFileDigest: digest,
      lifetime: SessionLifetime(idleSeconds: idle, deadline: deadline))
  }
}
