import CSodium

/// Makes sure libsodium is initialised before any of its functions run.
enum Sodium {
  private static let initialized: Bool = {
    sodium_init() >= 0
  }()

  static func ensureInitialized() {
    precondition(initialized, "libsodium failed to initialise")
  }

  /// Fills a buffer with random bytes from the operating system's generator.
  static func randomBytes(_ count: Int) -> [UInt8] {
    ensureInitialized()
    var bytes = [UInt8](repeating: 0, count: count)
    randombytes_buf(&bytes, count)
    return bytes
  }
}
