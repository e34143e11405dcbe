/// Padmé (Nikitin et al., "Reducing Metadata Leakage from Encrypted Files and
/// Communication with PURBs", 2019): rounds a length up so that it reveals only
/// O(log log L) bits, with at most 12% overhead (about 3% on average).
enum Padme {
  static func paddedLength(_ length: Int) -> Int {
    precondition(length >= 0)
    guard length >= 2 else { return length }
    let exponent = Int.bitWidth - 1 - length.leadingZeroBitCount  // ⌊log2 L⌋
    let exponentBits = Int.bitWidth - exponent.leadingZeroBitCount  // ⌊log2 E⌋ + 1
    let lastBits = exponent - exponentBits
    let mask = (1 << lastBits) - 1
    return (length + mask) & ~mask
  }
}
