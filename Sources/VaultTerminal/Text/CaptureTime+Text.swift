import VaultCore

/// The text forms of a date taken. They show the camera's clock as it read when the photo
/// was taken (what the photographer saw, wherever that was), not the moment converted to
/// the viewer's time zone; the offset, when the file gives it, says which zone that was.
extension CaptureTime {
  /// "2024-06-01 14:03", as the list shows it.
  public var shownDate: String {
    let clock = wallClock
    return "\(Self.day(clock)) \(Self.two(clock.hour)):\(Self.two(clock.minute))"
  }

  /// "2024-06-01", as a grid cell shows it.
  public var shownDay: String { Self.day(wallClock) }

  /// "2024-06-01 14:03:22 +02:00" (without the offset when the file gives none), as the
  /// viewer's details show it.
  public var shownInFull: String {
    let clock = wallClock
    var text = "\(Self.day(clock)) \(Self.time(clock))"
    if let offset = offsetText { text += " " + offset }
    return text
  }

  /// ISO 8601, for scripts: "2024-06-01T14:03:22+02:00"; with the sub-seconds when the
  /// file gives them ("2024-06-01T14:03:22.25+02:00"); without an offset (a local time)
  /// when it gives none.
  public var iso8601: String {
    let clock = wallClock
    var text = "\(Self.day(clock))T\(Self.time(clock))"
    if nanoseconds > 0 {
      var fraction = String(nanoseconds)
      fraction = String(repeating: "0", count: max(0, 9 - fraction.count)) + fraction
      while fraction.last == "0" { fraction.removeLast() }
      text += "." + fraction
    }
    if let offset = offsetText { text += offset }
    return text
  }

  /// "+02:00", "-05:30", "+00:00".
  private var offsetText: String? {
    guard let utcOffsetMinutes else { return nil }
    let minutes = abs(Int(utcOffsetMinutes))
    return (utcOffsetMinutes < 0 ? "-" : "+") + Self.two(minutes / 60) + ":" + Self.two(minutes % 60)
  }

  private static func day(_ clock: WallClock) -> String {
    let year = String(clock.year)
    return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(clock.month) + "-"
      + two(clock.day)
  }

  private static func time(_ clock: WallClock) -> String {
    two(clock.hour) + ":" + two(clock.minute) + ":" + two(clock.second)
  }

  private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
