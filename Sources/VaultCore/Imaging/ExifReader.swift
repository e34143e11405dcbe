import Foundation

/// Reads what vault uses of an EXIF block (a TIFF structure): the orientation, the date and
/// time the photo was taken, and the camera's make and model. JPEG APP1 segments, PNG
/// `eXIf` chunks and HEIC `Exif` items all hold one. The reader trusts nothing: every
/// offset and count is bounds-checked against the block, no directory is followed more
/// than one level deep (so no loop), and a field that is missing, malformed or out of
/// range is simply not found.
package struct ExifReader {
  /// The orientation of IFD0 (1...8); nil when the first orientation tag is missing or
  /// not a single SHORT from 1 to 8.
  package private(set) var orientation: Int?
  /// The date taken and the camera, as far as the block says.
  package private(set) var details = PhotoDetails()

  package static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"

  /// Reads a JPEG APP1 segment's bytes (after its length); nil when it is not EXIF.
  package init?(app1 segment: UnsafeRawBufferPointer) {
    guard segment.starts(with: Self.exifHeader) else { return nil }
    self.init(tiff: UnsafeRawBufferPointer(rebasing: segment[Self.exifHeader.count...]))
  }

  /// Reads a TIFF structure; nil when it does not start with a TIFF header.
  package init?(tiff bytes: UnsafeRawBufferPointer) {
    guard let tiff = TIFFBytes(bytes), let ifd0 = tiff.u32(4) else { return nil }
    var make: String?
    var model: String?
    var exifIFD: Int?
    var orientationSeen = false
    for entry in tiff.entries(ofDirectoryAt: ifd0) {
      switch entry.tag {
      case Tag.make: make = make ?? tiff.ascii(entry).flatMap(PhotoDetails.cleanText)
      case Tag.model: model = model ?? tiff.ascii(entry).flatMap(PhotoDetails.cleanText)
      case Tag.orientation where !orientationSeen:
        orientationSeen = true
        // Type SHORT (3), count 1: the value sits in the first two bytes of the value field.
        if entry.type == 3, entry.count == 1, let value = tiff.u16(entry.valueField), (1...8).contains(value)
        {
          orientation = value
        }
      case Tag.exifDirectory where exifIFD == nil:
        // LONG (4) or IFD (13), count 1.
        if entry.type == 4 || entry.type == 13, entry.count == 1 { exifIFD = tiff.u32(entry.valueField) }
      default: break
      }
    }
    var original: UnsafeRawBufferPointer?
    var offset: UnsafeRawBufferPointer?
    var subSeconds: UnsafeRawBufferPointer?
    if let exifIFD {
      for entry in tiff.entries(ofDirectoryAt: exifIFD) {
        switch entry.tag {
        case Tag.dateTimeOriginal: original = original ?? tiff.ascii(entry)
        case Tag.offsetTimeOriginal: offset = offset ?? tiff.ascii(entry)
        case Tag.subSecTimeOriginal: subSeconds = subSeconds ?? tiff.ascii(entry)
        default: break
        }
      }
    }
    details = PhotoDetails(
      taken: original.flatMap { CaptureTime(exifDate: $0, offset: offset, subSeconds: subSeconds) },
      cameraMake: make, cameraModel: model)
  }

  private enum Tag {
    static let make = 0x010F
    static let model = 0x0110
    static let orientation = 0x0112
    static let exifDirectory = 0x8769
    static let dateTimeOriginal = 0x9003
    static let offsetTimeOriginal = 0x9011
    static let subSecTimeOriginal = 0x9291
  }
}

/// A TIFF structure's bytes with its byte order: integers read at offsets from its header,
/// nil past its end.
private struct TIFFBytes {
  let bytes: UnsafeRawBufferPointer
  let littleEndian: Bool

  struct Entry {
    var tag: Int
    var type: Int
    var count: Int
    /// Where the entry's 4-byte value (or the offset of a longer value) is.
    var valueField: Int
  }

  init?(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 8 else { return nil }
    switch (bytes[0], bytes[1]) {
    case (0x49, 0x49): littleEndian = true
    case (0x4D, 0x4D): littleEndian = false
    default: return nil
    }
    self.bytes = bytes
    guard u16(2) == 42 else { return nil }
  }

  func u16(_ offset: Int) -> Int? {
    guard offset >= 0, offset <= bytes.count - 2 else { return nil }
    let a = Int(bytes[offset])
    let b = Int(bytes[offset + 1])
    return littleEndian ? a | b << 8 : a << 8 | b
  }

  func u32(_ offset: Int) -> Int? {
    guard let low = u16(littleEndian ? offset : offset + 2),
      let high = u16(littleEndian ? offset + 2 : offset)
    else { return nil }
    return high << 16 | low
  }

  /// The entries of the directory at `offset`, as many as its count says and the bytes
  /// hold: a count larger than the block (a hostile 65535) stops at the block's end.
  func entries(ofDirectoryAt offset: Int) -> [Entry] {
    guard let count = u16(offset) else { return [] }
    let fitting = min(count, max(0, (bytes.count - offset - 2) / 12))
    return (0..<fitting).compactMap { number in
      let position = offset + 2 + number * 12
      guard let tag = u16(position), let type = u16(position + 2), let count = u32(position + 4) else {
        return nil
      }
      return Entry(tag: tag, type: type, count: count, valueField: position + 8)
    }
  }

  /// The bytes of an ASCII (type 2) entry's value: in the value field when it fits in 4
  /// bytes, else at the offset the field holds.
  func ascii(_ entry: Entry) -> UnsafeRawBufferPointer? {
    guard entry.type == 2, entry.count > 0 else { return nil }
    let start: Int
    if entry.count <= 4 {
      start = entry.valueField
    } else {
      guard let offset = u32(entry.valueField) else { return nil }
      start = offset
    }
    guard start >= 0, start <= bytes.count, entry.count <= bytes.count - start else { return nil }
    return UnsafeRawBufferPointer(rebasing: bytes[start..<start + entry.count])
  }
}

extension CaptureTime {
  /// EXIF's "YYYY:MM:DD HH:MM:SS" (dashes and a `T` are taken too), with its
  /// "+HH:MM" offset and sub-second digits when given; nil for a date that is blank, all
  /// zeros (a camera whose clock was never set), or not a real date and time.
  init?(
    exifDate text: UnsafeRawBufferPointer, offset: UnsafeRawBufferPointer?,
    subSeconds: UnsafeRawBufferPointer?
  ) {
    let digitsAt = { (start: Int, count: Int) -> Int? in
      guard start + count <= text.count else { return nil }
      var value = 0
      for position in start..<start + count {
        let byte = text[position]
        guard (0x30...0x39).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      return value
    }
    guard text.count >= 19, text[4] == 0x3A || text[4] == 0x2D, text[7] == text[4],
      text[10] == 0x20 || text[10] == 0x54, text[13] == 0x3A, text[16] == 0x3A,
      let year = digitsAt(0, 4), let month = digitsAt(5, 2), let day = digitsAt(8, 2),
      let hour = digitsAt(11, 2), let minute = digitsAt(14, 2), let second = digitsAt(17, 2),
      let seconds = Self.wallClockSeconds(
        year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    else { return nil }
    // Anything after the seconds must be the string's end.
    guard text[19...].allSatisfy({ $0 == 0 || $0 == 0x20 }) else { return nil }
    self.init(
      localSeconds: seconds, nanoseconds: subSeconds.map(Self.nanoseconds) ?? 0,
      utcOffsetMinutes: offset.flatMap(Self.offsetMinutes))
  }

  /// EXIF's "+HH:MM" or "-HH:MM" in minutes east of UTC; nil when blank or malformed.
  private static func offsetMinutes(_ text: UnsafeRawBufferPointer) -> Int16? {
    guard text.count >= 6, text[0] == 0x2B || text[0] == 0x2D, text[3] == 0x3A,
      text[6...].allSatisfy({ $0 == 0 || $0 == 0x20 })
    else { return nil }
    let digits = [text[1], text[2], text[4], text[5]]
    guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    let values = digits.map { Int($0 - 0x30) }
    let hours = values[0] * 10 + values[1]
    let minutes = values[2] * 10 + values[3]
    guard hours <= 23, minutes <= 59 else { return nil }
    let total = hours * 60 + minutes
    return Int16(text[0] == 0x2D ? -total : total)
  }

  /// EXIF's sub-second digits ("25" is a quarter of a second) in nanoseconds; 0 when they
  /// are not digits. Digits past the ninth are dropped.
  private static func nanoseconds(_ text: UnsafeRawBufferPointer) -> Int32 {
    var digits = text.prefix { $0 != 0 && $0 != 0x20 }
    guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return 0 }
    digits = digits.prefix(9)
    var value: Int32 = 0
    for digit in digits { value = value * 10 + Int32(digit - 0x30) }
    for _ in digits.count..<9 { value *= 10 }
    return value
  }
}
