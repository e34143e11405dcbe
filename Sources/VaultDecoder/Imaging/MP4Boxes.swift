import VaultCore

/// The boxes of an MP4 or QuickTime file, read from their headers alone through a
/// `read(offset, count)` that gives fewer bytes than asked at the end: what the checks made
/// before FFmpeg opens a file (`MP4SampleCount`) and the Live Photo marker
/// (`LiveMotionMarker`) walk. Every size is checked against its parent's end, and a walk
/// visits a bounded number of boxes.
enum MP4Boxes {
  /// The boxes whose children are the track tables.
  static let trackContainers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl"]
  /// Boxes a walk visits at most.
  static let boxLimit = 100_000

  struct Header {
    let type: String
    let size: Int64
    let headerLength: Int64
  }

  /// Calls `visit` with each box in `start..<end` and its offset, going down into the boxes
  /// whose type is in `containers` (they are visited too); stops at the first box that does
  /// not fit its parent, after `boxLimit` boxes, or when `visit` returns false.
  static func walk(
    from start: Int64, to end: Int64, into containers: Set<String>, read: (Int64, Int) throws -> [UInt8],
    visit: (Header, Int64) throws -> Bool
  ) throws {
    var visited = 0
    func walk(from start: Int64, to end: Int64) throws -> Bool {
      var offset = start
      while offset + 8 <= end, visited < boxLimit {
        visited += 1
        guard let box = header(try read(offset, 16), at: offset, end: end) else { return true }
        guard try visit(box, offset) else { return false }
        if containers.contains(box.type) {
          guard try walk(from: offset + box.headerLength, to: offset + box.size) else { return false }
        }
        offset += box.size
      }
      return true
    }
    _ = try walk(from: start, to: end)
  }

  /// The box whose header is `bytes`, at `offset` in a parent ending at `end`; nil when it
  /// does not fit there.
  static func header(_ bytes: [UInt8], at offset: Int64, end: Int64) -> Header? {
    guard bytes.count >= 8 else { return nil }
    let type = String(decoding: bytes[4..<8], as: UTF8.self)
    var size = Int64(bigEndian(bytes, at: 0))
    var headerLength: Int64 = 8
    if size == 1 {
      guard bytes.count >= 16 else { return nil }
      let large = UInt64(bigEndian(bytes, at: 8)) << 32 | UInt64(bigEndian(bytes, at: 12))
      guard large <= UInt64(Int64.max) else { return nil }
      (size, headerLength) = (Int64(large), 16)
    } else if size == 0 {
      size = end - offset
    }
    guard size >= headerLength, size <= end - offset else { return nil }
    return Header(type: type, size: size, headerLength: headerLength)
  }

  static func bigEndian(_ bytes: [UInt8], at index: Int) -> UInt32 {
    bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }
}
