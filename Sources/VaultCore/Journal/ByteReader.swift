/// Reads big-endian fields; every read returns nil past the end instead of trapping.
///
/// Every read is inlined where it is used: a big space's open reads some 200,000 journal
/// entries of a dozen fields each, and a call per field was a fifth of reading them.
package struct ByteReader {
  private let buffer: UnsafeRawBufferPointer
  package private(set) var offset = 0

  package init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

  @inline(__always)
  package var remaining: Int { buffer.count - offset }

  @inline(__always)
  package mutating func skip(_ count: Int) { offset = min(buffer.count, offset + count) }

  @inline(__always)
  package mutating func byte() -> UInt8? {
    guard remaining >= 1 else { return nil }
    defer { offset += 1 }
    return buffer[offset]
  }

  /// The next `count` bytes, in place (valid as long as the buffer).
  @inline(__always)
  package mutating func slice(_ count: Int) -> UnsafeRawBufferPointer? {
    guard count >= 0, remaining >= count else { return nil }
    defer { offset += count }
    return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
  }

  @inline(__always)
  package mutating func blobID() -> BlobID? {
    guard let high = integer(UInt64.self), let low = integer(UInt64.self) else { return nil }
    return BlobID(high: high, low: low)
  }

  @inline(__always)
  private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
    let width = MemoryLayout<T>.size
    guard remaining >= width else { return nil }
    defer { offset += width }
    return T(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: T.self))
  }

  @inline(__always)
  package mutating func uint16() -> UInt16? { integer(UInt16.self) }
  @inline(__always)
  package mutating func uint32() -> UInt32? { integer(UInt32.self) }
  @inline(__always)
  package mutating func int64() -> Int64? { integer(Int64.self) }

  package func remainingAreZero() -> Bool {
    buffer[offset...].allSatisfy { $0 == 0 }
  }
}
