import CSodium

/// Comparing secrets (an access token) in time that does not depend on where they differ,
/// with libsodium's `sodium_memcmp`.
public enum ConstantTime {
  /// Whether `first` and `second`, of the same length, hold the same bytes.
  public static func equal(_ first: [UInt8], _ second: [UInt8]) -> Bool {
    precondition(first.count == second.count, "compared secrets have the same length")
    return sodium_memcmp(first, second, first.count) == 0
  }
}
