/// What a `buffer` frame says (its one byte) about the shared memory a helper writes
/// pixels into: the parent hands over a new one only when the one the helper keeps is
/// too small (or there is none), and says whether to keep the new one for later pictures.
package enum SharedMemoryHandOver: UInt8, Sendable {
  /// No descriptor comes: write into the shared memory kept from an earlier `buffer`.
  case reuse = 0
  /// A new one comes: write into it and keep it mapped for later pictures, in place of
  /// the one kept before.
  case keep = 1
  /// A new one comes, too large to keep: write into it and unmap it; what was kept before
  /// stays kept.
  case once = 2
}
