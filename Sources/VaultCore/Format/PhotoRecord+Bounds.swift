/// The ranges a photo record's numbers must lie in when read from a vault file (a journal
/// entry, an original's blob, format 1's index), so that no value read reaches arithmetic
/// that would overflow: sizes are added up (`vault info`), pixel counts multiplied, dates
/// turned into moments. Every photo vault imports lies well inside them.
extension PhotoRecord {
  /// 2^48 bytes (256 TiB): sums of a million of them still fit in 64 bits.
  static let byteLimit: Int64 = 1 << 48
  /// 2^30 pixels a side and 2^40 pixels in all, so that a pixel count times 4 bytes, or a
  /// side times a side, fits in 64 bits (imports stop at `Thumbnailer.pixelLimit`).
  package static let sideLimit = 1 << 30
  static let pixelLimit = 1 << 40
  /// A video's duration, in microseconds: up to 2^40 (about 12 days), so that sums of a
  /// million of them fit in 64 bits (imports stop at `Thumbnailer.videoDurationLimit`).
  static let durationRange: ClosedRange<Int64> = 0...(1 << 40)

  /// What is out of range in the record, or nil.
  var outOfRange: String? {
    if let problem = Self.sizesOutOfRange(bytes: bytes, width: width, height: height) { return problem }
    if let durationMicroseconds, !Self.durationRange.contains(durationMicroseconds) {
      return "its duration is out of range"
    }
    if let taken {
      guard JournalEntry.takenRange.contains(taken.localSeconds),
        (0..<1_000_000_000).contains(taken.nanoseconds),
        taken.utcOffsetMinutes.map(JournalEntry.offsetRange.contains) ?? true
      else { return "its date taken is out of range" }
    }
    return nil
  }

  /// What is out of range in a record's size and size in pixels, or nil.
  static func sizesOutOfRange(bytes: Int64, width: Int, height: Int) -> String? {
    guard (0...byteLimit).contains(bytes) else { return "its size \(bytes) is out of range" }
    guard (0...sideLimit).contains(width), (0...sideLimit).contains(height), width * height <= pixelLimit
    else { return "its size in pixels \(width)×\(height) is out of range" }
    return nil
  }
}
