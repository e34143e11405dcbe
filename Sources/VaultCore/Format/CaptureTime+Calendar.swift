/// The calendar arithmetic of a `CaptureTime`'s wall-clock seconds, in the proleptic
/// Gregorian calendar (Howard Hinnant's days_from_civil and civil_from_days), so that no C
/// library's range or time zone is involved: the seconds are a camera's clock face, not a
/// moment.
extension CaptureTime {
  /// A wall-clock date and time.
  public struct WallClock: Equatable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
  }

  /// Seconds since 1970 of a wall-clock date and time read as UTC; nil unless every part
  /// is in range (years 1 to 9999).
  package static func wallClockSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)
    -> Int64?
  {
    guard (1...9999).contains(year), (1...12).contains(month), (0...23).contains(hour),
      (0...59).contains(minute), (0...59).contains(second)
    else { return nil }
    let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let monthDays = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard (1...monthDays[month - 1]).contains(day) else { return nil }
    // days_from_civil: days from 1970-01-01.
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146097 + dayOfEra - 719468
    return Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second)
  }

  /// The date and time `localSeconds` stands for.
  public var wallClock: WallClock {
    let (days, secondOfDay) = localSeconds.quotientAndRemainder(dividingBy: 86400)
    let dayNumber = Int(secondOfDay < 0 ? days - 1 : days) + 719468
    let second = Int(secondOfDay < 0 ? secondOfDay + 86400 : secondOfDay)
    let era = (dayNumber >= 0 ? dayNumber : dayNumber - 146096) / 146097
    let dayOfEra = dayNumber - era * 146097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return WallClock(
      year: year, month: month, day: day, hour: second / 3600, minute: second / 60 % 60, second: second % 60)
  }
}
