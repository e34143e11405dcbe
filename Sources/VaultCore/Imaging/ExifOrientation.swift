/// Reads the EXIF orientation tag (0x0112) from a JPEG APP1 segment. The parser trusts
/// nothing: every offset is bounds-checked, and anything odd means "no orientation".
public enum ExifOrientation {
  /// The orientation (1...8) in an APP1 segment's bytes, or nil when the segment is not
  /// EXIF or has no valid orientation.
  public static func read(app1 segment: [UInt8]) -> Int? {
    let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
    guard segment.count >= 14, segment.starts(with: exifHeader) else { return nil }
    let tiff = Array(segment[6...])
    let littleEndian: Bool
    switch (tiff[0], tiff[1]) {
    case (0x49, 0x49): littleEndian = true
    case (0x4D, 0x4D): littleEndian = false
    default: return nil
    }
    func u16(_ offset: Int) -> Int? {
      guard offset >= 0, offset + 2 <= tiff.count else { return nil }
      let a = Int(tiff[offset])
      let b = Int(tiff[offset + 1])
      return littleEndian ? a | b << 8 : a << 8 | b
    }
    func u32(_ offset: Int) -> Int? {
      guard let low = u16(littleEndian ? offset : offset + 2),
        let high = u16(littleEndian ? offset + 2 : offset)
      else { return nil }
      return high << 16 | low
    }
    guard u16(2) == 42, let ifdOffset = u32(4), let entryCount = u16(ifdOffset) else { return nil }
    for entry in 0..<entryCount {
      let position = ifdOffset + 2 + entry * 12
      guard let tag = u16(position) else { return nil }
      guard tag == 0x0112 else { continue }
      // Type SHORT (3), count 1: the value sits in the first two bytes of the value field.
      guard u16(position + 2) == 3, u32(position + 4) == 1, let value = u16(position + 8),
        (1...8).contains(value)
      else { return nil }
      return value
    }
    return nil
  }

  /// Whether an orientation turns the picture by 90°, swapping width and height.
  public static func swapsDimensions(_ orientation: Int) -> Bool {
    (5...8).contains(orientation)
  }
}
