/// A copy of bytes at a fixed address, for a C decoder that keeps reading them after the
/// call that was given them returns (libjpeg's and libpng's memory sources). The bytes are
/// often decrypted (a thumbnail, an original being re-thumbnailed), so they are wiped
/// before they are freed with their owner.
package final class PinnedBytes {
  package let buffer: UnsafeMutableBufferPointer<UInt8>
  package let count: Int

  package init(_ source: [UInt8]) {
    buffer = .allocate(capacity: max(1, source.count))
    _ = buffer.initialize(from: source)
    count = source.count
  }

  /// `count` bytes for the owner to fill (a file read straight into them). They are not
  /// zeroed first: that would be one more pass over every byte of a photo.
  package init(count: Int) {
    buffer = .allocate(capacity: max(1, count))
    self.count = count
  }

  package var baseAddress: UnsafePointer<UInt8>? { UnsafePointer(buffer.baseAddress) }

  /// Overwrites the bytes with zeros.
  package func wipe() {
    Sodium.zero(buffer.baseAddress, count: buffer.count)
  }

  deinit {
    wipe()
    buffer.deallocate()
  }
}
