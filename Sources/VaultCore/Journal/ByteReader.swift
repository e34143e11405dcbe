/// Reads big-endian fields; every read returns nil past the end instead of trapping.
struct ByteReader {
  private let buffer: UnsafeRawBufferPointer
  private(set) var offset = 0

  init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

  var remaining: Int { buffer.count - offset }

  mutating func skip(_ count: Int) { offset = min(buffer.count, offset + count) }

  mutating func byte() -> UInt8? {
    guard remaining >= 1 else { return nil }
    defer { offset += 1 }
    return buffer[offset]
  }

  /// The next `count` bytes, in place (valid as long as the buffer).
  mutating func slice(_ count: Int) -> UnsafeRawBufferPointer? {
    guard count >= 0, remaining >= count else { return nil }
    defer { offset += count }
    return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
  }

  mutating func blobID() -> BlobID? {
    guard let high = integer(UInt64.self), let low = integer(UInt64.self) else { return nil }
    return BlobID(high: high, low: low)
  }

  private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
    let width = MemoryLayout<T>.size
    guard remaining >= width else { return nil }
    defer { offset += width }
    return T(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: T.self))
  }

  mutating func uint16() -> UInt16? { integer(UInt16.self) }
  mutating func uint32() -> UInt32? { integer(UInt32.self) }
  mutating func int64() -> Int64? { integer(Int64.self) }

  func remainingAreZero() -> Bool {
    buffer[offset...].allSatisfy { $0 == 0 }
  }
}
