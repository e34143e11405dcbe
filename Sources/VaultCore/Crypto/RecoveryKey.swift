import CSodium

/// A space's recovery key: 16 random bytes that unwrap the space's master key from its
/// `recovery` file when the password is forgotten (docs/FORMAT.md, "Recovery key"). It is
/// written for people as 32 Crockford base32 characters in 8 groups of 4: the 16 bytes and
/// a 4-byte check, so that a typo is caught before any key is derived from it.
public final class RecoveryKey {
  static let secretLength = 16
  static let checkLength = 4
  static let characterCount = (secretLength + checkLength) * 8 / 5
  static let groupLength = 4
  /// Crockford's base32: no I, L, O or U, which read as 1, 1, 0 or a V.
  static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
  static let checkLabel = Array("vault recovery key check v1".utf8)
  static let wrappingLabel = Array("vault recovery wrapping key v1".utf8)

  let secret: SecureBytes

  init(secret: SecureBytes) {
    precondition(secret.count == Self.secretLength)
    self.secret = secret
  }

  /// A new random recovery key.
  public static func generate() -> RecoveryKey {
    RecoveryKey(secret: SecureBytes.random(count: secretLength))
  }

  /// The key as it was written down: the 32 characters in any case, with any spaces,
  /// tabs and dashes; O reads as 0, I and L as 1. The check is verified here, before any
  /// key is derived: a typo is `.invalidRecoveryKey`.
  public init(typed: [UInt8]) throws {
    var values = [UInt8]()
    values.reserveCapacity(typed.count)
    defer { values.wipe() }
    for character in typed where ![0x20, 0x09, 0x2D].contains(character) {
      guard let value = Self.value(of: character) else {
        let shown =
          character < 0x80 && character >= 0x21 ? "'\(Character(UnicodeScalar(character)))'" : "a character"
        throw VaultError.invalidRecoveryKey(
          reason: "has \(shown), which no recovery key has (they are 0-9 and A-Z without I, L, O, U)")
      }
      values.append(value)
    }
    guard values.count == Self.characterCount else {
      throw VaultError.invalidRecoveryKey(
        reason: "has \(values.count) letters and digits; a recovery key has \(Self.characterCount)")
    }
    var bytes = Self.base32Decode(values)
    defer { bytes.wipe() }
    let secret = bytes.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[..<16])) }
    guard Self.check(of: secret) == Array(bytes[Self.secretLength...]) else {
      throw VaultError.invalidRecoveryKey(
        reason: "has a typo: its check does not match the rest (compare it with the key written down)")
    }
    self.secret = secret
  }

  /// The key as printed, `XXXX-XXXX-…`, as ASCII bytes the caller wipes.
  public func displayBytes() -> [UInt8] {
    // Every buffer is made at its full size, so that growing never leaves an unwiped copy.
    var bytes = [UInt8]()
    bytes.reserveCapacity(Self.secretLength + Self.checkLength)
    defer { bytes.wipe() }
    bytes += UnsafeBufferPointer(start: secret.bytes, count: secret.count)
    bytes += Self.check(of: secret)
    var symbols = Self.base32Encode(bytes)
    defer { symbols.wipe() }
    var text = [UInt8]()
    text.reserveCapacity(symbols.count + symbols.count / Self.groupLength)
    for (index, symbol) in symbols.enumerated() {
      if index > 0 && index % Self.groupLength == 0 { text.append(0x2D) }
      text.append(symbol)
    }
    return text
  }

  /// The key that wraps the master key in the `recovery` file: BLAKE2b-256 keyed with the
  /// 16 bytes over "vault recovery wrapping key v1". No Argon2: the bytes are random, so a
  /// slow hash would not make a guess any less hopeless (see docs/FORMAT.md).
  func wrappingKey() -> SecureBytes {
    let output = SecureBytes(count: 32)
    // It fails only for an output or key length outside 16...64 bytes.
    Sodium.check(
      crypto_generichash(
        output.mutableBytes, 32, Self.wrappingLabel, UInt64(Self.wrappingLabel.count), secret.bytes,
        secret.count),
      "crypto_generichash")
    return output
  }

  /// The first 4 bytes of BLAKE2b-128 (unkeyed) of "vault recovery key check v1" ‖ secret.
  static func check(of secret: SecureBytes) -> [UInt8] {
    var message = [UInt8]()
    message.reserveCapacity(checkLabel.count + secret.count)
    defer { message.wipe() }
    message += checkLabel
    message += UnsafeBufferPointer(start: secret.bytes, count: secret.count)
    var digest = [UInt8](repeating: 0, count: 16)
    Sodium.check(
      crypto_generichash(&digest, 16, message, UInt64(message.count), nil, 0), "crypto_generichash")
    return Array(digest.prefix(checkLength))
  }

  /// The 5-bit value of a typed character, or nil.
  static func value(of character: UInt8) -> UInt8? {
    var upper = character >= 0x61 && character <= 0x7A ? character - 0x20 : character
    switch upper {
    case UInt8(ascii: "O"): upper = UInt8(ascii: "0")
    case UInt8(ascii: "I"), UInt8(ascii: "L"): upper = UInt8(ascii: "1")
    default: break
    }
    return alphabet.firstIndex(of: upper).map(UInt8.init)
  }

  /// Base32 of bytes whose bit count is a multiple of 5, most significant bits first.
  static func base32Encode(_ bytes: [UInt8]) -> [UInt8] {
    var symbols = [UInt8]()
    symbols.reserveCapacity(bytes.count * 8 / 5)
    var buffer: UInt32 = 0
    var bits = 0
    for byte in bytes {
      buffer = buffer << 8 | UInt32(byte)
      bits += 8
      while bits >= 5 {
        bits -= 5
        symbols.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
      }
    }
    buffer = 0
    return symbols
  }

  /// The bytes of 5-bit values whose bit count is a multiple of 8.
  static func base32Decode(_ values: [UInt8]) -> [UInt8] {
    var bytes = [UInt8]()
    bytes.reserveCapacity(values.count * 5 / 8)
    var buffer: UInt32 = 0
    var bits = 0
    for value in values {
      buffer = buffer << 5 | UInt32(value)
      bits += 5
      if bits >= 8 {
        bits -= 8
        bytes.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
      }
    }
    buffer = 0
    return bytes
  }
}
