import CSodium

extension Sodium {
  /// Overwrites `count` bytes at `pointer` with zeros, with libsodium's `sodium_memzero`:
  /// unlike a plain loop, the compiler cannot drop it as a store nothing reads.
  package static func zero(_ pointer: UnsafeMutableRawPointer?, count: Int) {
    sodium_memzero(pointer, count)
  }
}
