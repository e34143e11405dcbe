/// A password held in secure memory. Its bytes are the UTF-8 text as typed, without the
/// line ending.
public final class Password {
  let storage: SecureBytes
  let length: Int

  /// Takes a password from UTF-8 bytes; the caller wipes its own copy.
  public init(utf8 bytes: [UInt8]) throws {
    guard !bytes.isEmpty else { throw VaultError.invalidPassword(reason: "it is empty") }
    guard String(validating: bytes, as: UTF8.self) != nil else {
      throw VaultError.invalidPassword(reason: "it is not valid UTF-8")
    }
    storage = bytes.withUnsafeBytes { SecureBytes(copying: $0) }
    length = bytes.count
  }

  /// Whether two passwords are the same, compared in constant time.
  public func matches(_ other: Password) -> Bool {
    length == other.length && storage.isEqual(to: other.storage)
  }
}
