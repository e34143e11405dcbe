/// The EXIF orientation (tag 0x0112) of a JPEG, read from its APP1 segments by the one
/// EXIF reader (`ExifReader`), and what an orientation does to a picture's size.
public enum ExifOrientation {
  /// The orientation (1...8) in an APP1 segment's bytes, or nil when the segment is not
  /// EXIF or has no valid orientation.
  public static func read(app1 segment: [UInt8]) -> Int? {
    segment.withUnsafeBytes { ExifReader(app1: $0)?.orientation }
  }

  /// Whether an orientation turns the picture by 90°, swapping width and height.
  public static func swapsDimensions(_ orientation: Int) -> Bool {
    (5...8).contains(orientation)
  }
}
