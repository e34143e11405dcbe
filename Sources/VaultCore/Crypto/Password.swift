import Foundation

/// A password held in secure memory. Its bytes are the UTF-8 text as typed, without the
/// line ending, in Unicode normalization form C (NFC): `café` typed with a precomposed
/// `é` or with `e` and a combining accent opens the same space.
public final class Password {
  let storage: SecureBytes
  let length: Int

  /// Takes a password from UTF-8 bytes; the caller wipes its own copy.
  public init(utf8 bytes: [UInt8]) throws {
    guard !bytes.isEmpty else { throw VaultError.invalidPassword(reason: "it is empty") }
    // A NUL could never be typed or set in VAULT_PASSWORD, so a space made with one
    // could be opened only from a file.
    guard !bytes.contains(0) else { throw VaultError.invalidPassword(reason: "it contains a NUL byte") }
    guard String(validating: bytes, as: UTF8.self) != nil else {
      throw VaultError.invalidPassword(reason: "it is not valid UTF-8")
    }
    var normalized = Self.normalized(bytes)
    defer { normalized.wipe() }
    storage = normalized.withUnsafeBytes { SecureBytes(copying: $0) }
    length = normalized.count
    asTyped = normalized == bytes ? nil : try Password(exactly: bytes)
  }

  /// The bytes exactly as given, without normalization.
  init(exactly bytes: [UInt8]) throws {
    storage = bytes.withUnsafeBytes { SecureBytes(copying: $0) }
    length = bytes.count
    asTyped = nil
  }

  /// The password as typed, when that differs from its NFC form: format 1 used the bytes
  /// as typed, so a space it made with a decomposed password opens with this form.
  public let asTyped: Password?

  /// The NFC form of valid UTF-8 text. ASCII is already in NFC and is returned as it is;
  /// other text goes through Foundation's normalization, whose intermediate strings are
  /// ordinary memory that cannot be wiped (a limit documented in docs/SECURITY.md).
  static func normalized(_ bytes: [UInt8]) -> [UInt8] {
    if bytes.allSatisfy({ $0 < 0x80 }) { return bytes }
    return Array(String(decoding: bytes, as: UTF8.self).precomposedStringWithCanonicalMapping.utf8)
  }

  /// How many characters (Unicode code points) the password has, counted in place so
  /// that no copy is made: the UTF-8 bytes that start a code point.
  public var characterCount: Int {
    UnsafeRawBufferPointer(start: storage.pointer, count: length).reduce(0) {
      $0 + ($1 & 0xC0 == 0x80 ? 0 : 1)
    }
  }

  /// Lends the password's UTF-8 bytes (NFC) to `body`, which must not keep them: to hand
  /// the password to a child process through a pipe (`vault mount --background`).
  public func withUTF8Bytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    try body(UnsafeRawBufferPointer(start: storage.pointer, count: length))
  }

  /// Whether two passwords are the same, compared in constant time.
  public func matches(_ other: Password) -> Bool {
    length == other.length && storage.isEqual(to: other.storage)
  }
}
