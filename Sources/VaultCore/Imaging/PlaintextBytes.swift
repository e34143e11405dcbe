/// A decrypted file held in memory only (an original being shown), at a fixed address so
/// that a decoder can read it in place. It is never written anywhere, and it is wiped when
/// the last reference goes, whoever else still holds its buffer.
///
/// Filled once, before its creator returns it, and only read afterwards: sharing it
/// between threads is safe.
public final class PlaintextBytes: @unchecked Sendable {
  package let pinned: PinnedBytes

  /// `count` bytes for the creator to fill (not zeroed first: they are all overwritten).
  package init(count: Int) {
    pinned = PinnedBytes(count: count)
  }

  /// Takes over `pinned` (a decoder helper's copy of a file vault sent it).
  package init(pinned: PinnedBytes) {
    self.pinned = pinned
  }

  /// A copy of `bytes`; the caller wipes its own.
  package init(_ bytes: [UInt8]) {
    pinned = PinnedBytes(bytes)
  }

  public var count: Int { pinned.count }

  /// Lends the bytes to `body`; they must not be kept past it.
  public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    try body(UnsafeRawBufferPointer(start: pinned.buffer.baseAddress, count: pinned.count))
  }

  deinit {
    // A decoder may still hold `pinned`; the plaintext goes now all the same.
    pinned.wipe()
  }
}
