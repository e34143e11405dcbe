import CSodium

/// Makes sure libsodium is initialised before any of its functions run.
package enum Sodium {
  private static let initialized: Bool = {
    sodium_init() >= 0
  }()

  static func ensureInitialized() {
    precondition(initialized, "libsodium failed to initialise")
  }

  /// Checks the status of a libsodium call that can fail only when given lengths outside
  /// its documented ranges. Every length vault passes is a constant of the format (key,
  /// hash, chunk and header sizes), so a failure is a programming error, not bad input:
  /// it stops the process rather than carry on with unset keys or unencrypted output.
  static func check(_ status: Int32, _ function: StaticString) {
    precondition(status == 0, "libsodium: \(function) failed")
  }

  /// Fills a buffer with random bytes from the operating system's generator.
  static func randomBytes(_ count: Int) -> [UInt8] {
    ensureInitialized()
    var bytes = [UInt8](repeating: 0, count: count)
    randombytes_buf(&bytes, count)
    return bytes
  }
}
