import VaultCore

/// The boxes (ISO/IEC 14496-12, 4.2) one after another in a range of bytes: a 32-bit size
/// (1: a 64-bit size follows the type; 0: to the end), a four-character type, the payload.
/// A box that does not fit in the range ends the walk.
struct BMFFBoxes: Sequence, IteratorProtocol {
  struct Box {
    let type: String
    /// Where the payload lies in the bytes walked.
    let payload: Range<Int>
  }

  private let bytes: [UInt8]
  private var position: Int
  private let end: Int

  /// The boxes in `range` of `bytes`.
  init(_ bytes: [UInt8], in range: Range<Int>) {
    self.bytes = bytes
    position = range.lowerBound
    end = Swift.min(range.upperBound, bytes.count)
  }

  /// The boxes from `start` to the end of `bytes`.
  init(_ bytes: [UInt8], from start: Int) {
    self.init(bytes, in: start..<bytes.count)
  }

  mutating func next() -> Box? {
    guard position < end, let box = Self.header(bytes, at: position, end: end - position) else { return nil }
    guard box.payload.upperBound <= end else { return nil }
    position = box.payload.upperBound
    return box
  }

  /// The box whose header starts at `offset` of `bytes`, `available` bytes from there to the
  /// end of what holds it (its payload may lie past the end of `bytes`).
  static func header(_ bytes: [UInt8], at offset: Int, end available: Int) -> Box? {
    guard offset + 8 <= bytes.count else { return nil }
    var size = HEIFPictureSizes.bigEndian(bytes[offset..<offset + 4])
    let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
    var headerSize = 8
    if size == 1 {
      guard offset + 16 <= bytes.count else { return nil }
      let large = bytes[offset + 8..<offset + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      guard large <= UInt64(Int.max) else { return nil }
      size = Int(large)
      headerSize = 16
    } else if size == 0 {
      size = available
    }
    guard size >= headerSize, size <= available else { return nil }
    return Box(type: type, payload: offset + headerSize..<offset + size)
  }
}
