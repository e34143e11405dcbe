import VaultCore

/// The secret in the upload address: 32 random bytes from libsodium, written in base64url
/// without padding (43 characters). It lives as long as the process.
public struct AccessToken: Sendable {
  public static let byteCount = 32
  /// The length of `text`.
  public static let textLength = 43

  /// The token as it appears in the address.
  public let text: String
  private let bytes: [UInt8]

  /// A new random token.
  public init() {
    self.init(text: Base64URL.encode(SecureRandom.bytes(Self.byteCount)))
  }

  init(text: String) {
    self.text = text
    bytes = Array(text.utf8)
  }

  /// Whether `candidate` is the token, in time that does not depend on where they differ.
  public func matches<Candidate: Collection<UInt8>>(_ candidate: Candidate) -> Bool {
    guard candidate.count == bytes.count else { return false }
    let candidateBytes = Array(candidate)
    return ConstantTime.equal(candidateBytes, bytes)
  }
}

/// base64url (RFC 4648 §5) without padding.
enum Base64URL {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count * 4 + 2) / 3)
    var index = 0
    while index < bytes.count {
      let chunk = bytes[index..<min(index + 3, bytes.count)]
      var value = 0
      for (offset, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * offset) }
      for position in 0...chunk.count { output.append(alphabet[(value >> (18 - 6 * position)) & 63]) }
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }
}
