/// Padmé, the padding of the PURBs paper (Nikitin et al., "Reducing Metadata Leakage from
/// Encrypted Files and Communication with PURBs", PETS 2019): a length is rounded up so
/// that only its top bits remain, which leaves O(log log L) bits of information about L
/// at a cost of at most 12% (docs/FORMAT.md, "Padding").
package enum Padme {
  /// The length a payload of `length` bytes is padded to: for L ≥ 2, with E = ⌊log2 L⌋
  /// and S = ⌊log2 E⌋ + 1, the last E − S bits of L are rounded up. 0 and 1 stay as they are.
  package static func paddedLength(_ length: Int) -> Int {
    precondition(length >= 0, "a length is never negative")
    guard length >= 2 else { return length }
    let exponent = floorLog2(length)
    let significantBits = floorLog2(exponent) + 1
    let roundedBits = exponent - significantBits
    guard roundedBits > 0 else { return length }
    let mask = (1 << roundedBits) - 1
    return (length + mask) & ~mask
  }

  private static func floorLog2(_ value: Int) -> Int {
    Int.bitWidth - 1 - value.leadingZeroBitCount
  }
}
