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
    self.init(text: Base64.encoded(SecureRandom.bytes(Self.byteCount), variant: .urlSafeUnpadded))
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
