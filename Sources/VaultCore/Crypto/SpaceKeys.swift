import CSodium

/// What a password key yields: the name of its space folder and the key that wraps the
/// space's master key. Both come from one Argon2id run.
struct PasswordKeys {
  /// The space folder's name: 32 lowercase hex digits.
  let spaceTag: String
  /// Wraps and unwraps the space's master key.
  let wrappingKey: SecureBytes

  static let tagContext = "vaulttag"
  static let wrapContext = "vaultkey"

  init(passwordKey: SecureBytes) {
    let tag = SecureBytes(count: 16)
    // Each fails only for a subkey length outside 16...64 bytes.
    Sodium.check(
      crypto_kdf_derive_from_key(tag.mutableBytes, 16, 1, Self.tagContext, passwordKey.bytes),
      "crypto_kdf_derive_from_key")
    spaceTag = (0..<16).map { hexByte(tag.bytes[$0]) }.joined()
    wrappingKey = SecureBytes(count: 32)
    Sodium.check(
      crypto_kdf_derive_from_key(wrappingKey.mutableBytes, 32, 1, Self.wrapContext, passwordKey.bytes),
      "crypto_kdf_derive_from_key")
  }
}

/// The kinds of encrypted blob; each kind's key is distinct, so a blob of one kind never
/// opens as another.
public enum BlobKind: UInt8, Sendable {
  case original = 1
  case thumbnail = 2
  case index = 3
  case snapshot = 4
}

/// A space's random master key and the keys derived from it.
///
/// `@unchecked Sendable`: its key is set when it is made and only read after (each
/// derivation reads it, from any thread that reads blobs); `SecureBytes`, locked memory
/// that is wiped when released, is a class that cannot say it is never written again.
package final class MasterKey: @unchecked Sendable {
  let key: SecureBytes

  static let length = 32
  static let blobKeyLabel = Array("vault blob key v1".utf8)
  static let contentHashLabel = Array("vault content hash key v1".utf8)
  static let journalKeyLabel = Array("vault journal key v2".utf8)

  package init(key: SecureBytes) {
    precondition(key.count == Self.length)
    self.key = key
  }

  static func generate() -> MasterKey {
    MasterKey(key: SecureBytes.random(count: length))
  }

  /// The key of one blob: BLAKE2b-256 keyed with the master key over
  /// "vault blob key v1" || kind || id.
  package func blobKey(kind: BlobKind, id: BlobID) -> SecureBytes {
    let message = Self.blobKeyLabel + [kind.rawValue] + id.bytes
    return keyedHash(message)
  }

  /// The key of the content hash that finds duplicates without revealing content.
  package func contentHashKey() -> SecureBytes {
    keyedHash(Self.contentHashLabel)
  }

  /// The key that seals journal records (each record's additional data names its segment
  /// and position).
  package func journalKey() -> SecureBytes {
    keyedHash(Self.journalKeyLabel)
  }

  private func keyedHash(_ message: [UInt8]) -> SecureBytes {
    let output = SecureBytes(count: 32)
    // It fails only for an output or key length outside 16...64 bytes.
    Sodium.check(
      crypto_generichash(output.mutableBytes, 32, message, UInt64(message.count), key.bytes, key.count),
      "crypto_generichash")
    return output
  }
}

private let hexDigits = Array("0123456789abcdef".utf8)

func hexByte(_ byte: UInt8) -> String {
  hexString([byte])
}

/// Lowercase hex of bytes.
func hexString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
  // Written straight into the string's storage: a big space's open makes one per photo.
  String(unsafeUninitializedCapacity: bytes.count * 2) { characters in
    var index = 0
    for byte in bytes {
      characters[index] = hexDigits[Int(byte >> 4)]
      characters[index + 1] = hexDigits[Int(byte & 0xF)]
      index += 2
    }
    return index
  }
}

/// Bytes of a lowercase or uppercase hex string, or nil.
func decodeHex(_ text: String) -> [UInt8]? {
  let characters = Array(text.utf8)
  guard characters.count % 2 == 0 else { return nil }
  var result = [UInt8]()
  result.reserveCapacity(characters.count / 2)
  func value(_ c: UInt8) -> UInt8? {
    switch c {
    case 48...57: return c - 48
    case 97...102: return c - 87
    case 65...70: return c - 55
    default: return nil
    }
  }
  var i = 0
  while i < characters.count {
    guard let high = value(characters[i]), let low = value(characters[i + 1]) else { return nil }
    result.append(high << 4 | low)
    i += 2
  }
  return result
}

/// The random 16-byte name of a photo; its blobs are `Photo/<hex>` and `Thumb/<hex>`. Held
/// as two integers, so that the maps of a big space hash and compare ids without
/// allocating.
public struct BlobID: Hashable, Sendable, CustomStringConvertible {
  private let high: UInt64
  private let low: UInt64

  public static let length = 16
  /// The index blob's id: all zeros.
  package static let index = BlobID(high: 0, low: 0)

  init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// The 16 bytes at `bytes` (which must hold exactly 16).
  package init(bytes: UnsafeRawBufferPointer) {
    precondition(bytes.count == Self.length)
    high = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    low = bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
  }

  public init?(hex: String) {
    guard let bytes = decodeHex(hex), bytes.count == Self.length,
      hex == hex.lowercased()
    else { return nil }
    self = bytes.withUnsafeBytes { BlobID(bytes: $0) }
  }

  public static func random() -> BlobID {
    Sodium.randomBytes(length).withUnsafeBytes { BlobID(bytes: $0) }
  }

  /// The 16 bytes, big-endian.
  public var bytes: [UInt8] {
    withUnsafeBytes(of: high.bigEndian, Array.init) + withUnsafeBytes(of: low.bigEndian, Array.init)
  }

  public var hex: String { hexString(bytes) }
  public var description: String { hex }

  /// The id as two words, for hashing it without `Hasher` (see `PositionIndex`).
  var words: (high: UInt64, low: UInt64) { (high, low) }
}

/// In byte order.
extension BlobID: Comparable {
  public static func < (left: BlobID, right: BlobID) -> Bool {
    (left.high, left.low) < (right.high, right.low)
  }
}

/// Encoded as its 32 lowercase hex digits, so records and the index read as plain JSON.
/// Decoding anything else throws `dataCorrupted` with `malformedDescription`: an id read
/// from decrypted data is never trusted as a file name.
extension BlobID: Codable {
  static let malformedDescription = "malformed photo id"

  public init(from decoder: Decoder) throws {
    let container = try decoder.singleValueContainer()
    guard let id = BlobID(hex: try container.decode(String.self)) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.malformedDescription)
    }
    self = id
  }

  public func encode(to encoder: Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(hex)
  }
}
