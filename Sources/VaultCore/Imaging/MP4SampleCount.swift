/// How many samples the tracks of an MP4 or QuickTime file declare (their `stsz` or `stz2`
/// boxes), read from box headers before FFmpeg opens it. FFmpeg's demuxer indexes every
/// sample of every track while it reads the header, before any check of ours: a 24 KB file
/// whose 40 tracks each claimed 2,000,000 samples of one size took 3.8 GB (a security
/// review). Only box headers and the counts are read, a bounded number of boxes.
enum MP4SampleCount {
  /// What FFmpeg holds for each sample it indexes (its index entry, the sizes and the times
  /// it expands from the tables), rounded up.
  static let indexBytesPerSample: Int64 = 64

  private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl"]
  private static let boxLimit = 100_000

  /// The samples declared in the `size` bytes that `read(offset, count)` gives (fewer than
  /// `count` at the end).
  static func declared(size: Int64, read: (Int64, Int) throws -> [UInt8]) throws -> Int64 {
    var total: Int64 = 0
    var visited = 0
    func walk(from start: Int64, to end: Int64) throws {
      var offset = start
      while offset + 8 <= end, visited < boxLimit {
        visited += 1
        guard let box = header(try read(offset, 16), at: offset, end: end) else { return }
        if containers.contains(box.type) {
          try walk(from: offset + box.headerLength, to: offset + box.size)
        } else if box.type == "stsz" || box.type == "stz2" {
          // Version and flags, a sample size (or a field size), then the count.
          let fields = try read(offset + box.headerLength, 12)
          if fields.count == 12 { total += Int64(bigEndian(fields, at: 8)) }
        }
        offset += box.size
      }
    }
    try walk(from: 0, to: size)
    return total
  }

  private struct Header {
    let type: String
    let size: Int64
    let headerLength: Int64
  }

  /// The box whose header is `bytes`, at `offset` in a parent ending at `end`; nil when it
  /// does not fit there.
  private static func header(_ bytes: [UInt8], at offset: Int64, end: Int64) -> Header? {
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

  private static func bigEndian(_ bytes: [UInt8], at index: Int) -> UInt32 {
    bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }
}
