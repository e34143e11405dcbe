import VaultCore

/// A video's date taken, from its container's tags as FFmpeg gives them: Apple's
/// `com.apple.quicktime.creationdate` ("2024-05-06T07:08:09+0200": the camera's clock and
/// its offset), else `creation_time` (the movie header's time, which FFmpeg writes as UTC:
/// "2024-05-06T05:08:09.000000Z"). A movie header's time of 0 (1904 or 1970) is a camera
/// that did not set it, not a date.
enum VideoDate {
  static func taken(apple: String?, container: String?) -> CaptureTime? {
    if let apple, let time = parse(apple) { return time }
    if let container, let time = parse(container), time.localSeconds > 86_400 { return time }
    return nil
  }

  /// An ISO 8601 date and time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction, then `Z`,
  /// `±HHMM` or `±HH:MM` (none: no offset known).
  static func parse(_ text: String) -> CaptureTime? {
    let bytes = Array(text.utf8)
    func number(_ start: Int, _ count: Int) -> Int? {
      guard start + count <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[start..<start + count] {
        guard (0x30...0x39).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      return value
    }
    guard bytes.count >= 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x20,
      bytes[13] == 0x3A, bytes[16] == 0x3A, let year = number(0, 4), let month = number(5, 2),
      let day = number(8, 2), let hour = number(11, 2), let minute = number(14, 2),
      let second = number(17, 2),
      let seconds = CaptureTime.wallClockSeconds(
        year: year, month: month, day: day, hour: hour, minute: minute, second: min(59, second))
    else { return nil }
    var offset = 19
    var nanoseconds = 0
    if offset < bytes.count, bytes[offset] == 0x2E {
      offset += 1
      var scale = 100_000_000
      while offset < bytes.count, (0x30...0x39).contains(bytes[offset]) {
        nanoseconds += Int(bytes[offset] - 0x30) * scale
        scale /= 10
        offset += 1
      }
    }
    var time = CaptureTime(localSeconds: seconds, nanoseconds: Int32(nanoseconds))
    guard offset < bytes.count else { return time }
    if bytes[offset] == 0x5A, offset + 1 == bytes.count {
      time.utcOffsetMinutes = 0
      return time
    }
    guard bytes[offset] == 0x2B || bytes[offset] == 0x2D, let hours = number(offset + 1, 2) else {
      return nil
    }
    let colon = offset + 3 < bytes.count && bytes[offset + 3] == 0x3A ? 1 : 0
    guard let minutes = number(offset + 3 + colon, 2), offset + 5 + colon == bytes.count, hours < 24,
      minutes < 60
    else { return nil }
    let sign = bytes[offset] == 0x2D ? -1 : 1
    time.utcOffsetMinutes = Int16(sign * (hours * 60 + minutes))
    return time
  }
}
