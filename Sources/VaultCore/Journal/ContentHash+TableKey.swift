/// A content hash's key in `DuplicateImports`' table: a hash of the whole content hash,
/// keyed per process. The content hash is keyed too, but with the space's key, which every
/// copy of the space holds: someone writing a copy's journal can choose hashes whose first
/// bytes are alike (8,000 alike in their first 32 bits took ~10 s to open when the table was
/// keyed by them), not hashes alike under keys drawn at each start that they never see.
///
/// The hash is NH's (UMAC), as `PositionIndex`'s (`TableHashing`): the four words, each
/// plus a key, multiplied in pairs to 128 bits and summed (two distinct hashes collide with
/// a chance of about 2^-64), folded and mixed so that the top bits (the slot) depend on
/// every bit. A tenth of the cost of Swift's `Hasher` over the same words (0.16 against
/// 1.8 ms for 100,000).
extension ContentHash {
  var tableKey: UInt64 {
    switch self {
    case .bytes(let a, let b, let c, let d): return Self.tableKey(a, b, c, d)
    // Only a forged format-1 record holds text: `Hasher` is seeded per process too.
    case .text(let text): return UInt64(bitPattern: Int64(text.hashValue))
    }
  }

  private static let keys = (
    UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max),
    UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max)
  )

  /// The key of the hash whose words, in order, are `a`, `b`, `c` and `d`.
  static func tableKey(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> UInt64 {
    let first = TableHashing.pair(a, b, keys: (keys.0, keys.1))
    let second = TableHashing.pair(c, d, keys: (keys.2, keys.3))
    let (low, carry) = first.low.addingReportingOverflow(second.low)
    return TableHashing.mixed((first.high &+ second.high &+ (carry ? 1 : 0)) ^ low)
  }
}
