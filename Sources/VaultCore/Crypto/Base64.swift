import CSodium

/// Base64 (RFC 4648) by libsodium, the one encoder vault has: the kitty graphics
/// protocol's pixel payloads (a 12-megapixel photo is 36 MB of RGB, encoded straight into
/// memory the caller has sized and wipes), the upload address's token and the page's
/// content-security hashes. libsodium's encoder runs in constant time and writes only
/// into the buffer it is given, so nothing decrypted is left in a copy of ours.
public enum Base64 {
  /// The alphabet and padding.
  public enum Variant: Sendable {
    /// RFC 4648 §4: `+`, `/` and `=` padding.
    case standard
    /// RFC 4648 §5, without padding: `-` and `_`, for addresses.
    case urlSafeUnpadded

    var sodiumVariant: Int32 {
      switch self {
      case .standard: sodium_base64_VARIANT_ORIGINAL
      case .urlSafeUnpadded: sodium_base64_VARIANT_URLSAFE_NO_PADDING
      }
    }
  }

  /// How many characters `count` bytes encode to (without the NUL libsodium ends with).
  public static func encodedCount(_ count: Int, variant: Variant = .standard) -> Int {
    sodium_base64_encoded_len(count, variant.sodiumVariant) - 1
  }

  /// Encodes `source` into `destination`, which has room for `encodedCount(source.count)`
  /// characters and one byte more: libsodium ends the text with a NUL there, which the
  /// caller overwrites or ignores.
  public static func encode(
    _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawPointer, variant: Variant = .standard
  ) {
    let room = encodedCount(source.count, variant: variant) + 1
    let input = source.baseAddress?.assumingMemoryBound(to: UInt8.self)
    let output = destination.bindMemory(to: CChar.self, capacity: room)
    // Empty input: libsodium still writes the NUL, and reads nothing.
    Sodium.ensureInitialized()
    withUnsafePointer(to: UInt8(0)) { empty in
      _ = sodium_bin2base64(output, room, input ?? empty, source.count, variant.sodiumVariant)
    }
  }

  /// `bytes` as Base64 text.
  public static func encoded(_ bytes: some Collection<UInt8>, variant: Variant = .standard) -> String {
    let input = Array(bytes)
    let count = encodedCount(input.count, variant: variant)
    var output = [UInt8](repeating: 0, count: count + 1)
    input.withUnsafeBytes { source in
      output.withUnsafeMutableBytes { encode(source, into: $0.baseAddress!, variant: variant) }
    }
    return String(decoding: output[..<count], as: UTF8.self)
  }

  /// The bytes `text` encodes, or nil when it is not Base64 of `variant` (a character
  /// outside the alphabet, wrong padding, or anything after the text).
  public static func decoded(_ text: String, variant: Variant = .standard) -> [UInt8]? {
    let input = Array(text.utf8)
    var output = [UInt8](repeating: 0, count: input.count / 4 * 3 + 3)
    var length = 0
    Sodium.ensureInitialized()
    let status = input.withUnsafeBufferPointer { source in
      source.withMemoryRebound(to: CChar.self) { characters in
        sodium_base642bin(
          &output, output.count, characters.baseAddress, characters.count, nil, &length, nil,
          variant.sodiumVariant)
      }
    }
    guard status == 0 else { return nil }
    return Array(output[..<length])
  }
}
