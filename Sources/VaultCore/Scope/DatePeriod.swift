import Foundation

/// A span of time named by a date as users type it: a day (`2024-06-01`), a minute
/// (`2024-06-01T14:03`) or a second (`2024-06-01T14:03:22`), in a time zone (the local one
/// by default). `--since` takes photos from its start, `--until` up to its end, so
/// `--until 2024-06-01` includes that whole day.
public struct DatePeriod: Equatable, Sendable {
  /// The first nanosecond of the period, since 1970 UTC (clamped to what 64 bits hold).
  public let start: Int64
  /// The first nanosecond after it.
  public let end: Int64

  public init(start: Int64, end: Int64) {
    self.start = start
    self.end = end
  }

  static let expectedForm = "write it as YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]"

  /// Parses `text`, in `zone`. Throws `.invalidDate` naming what is wrong.
  public init(parsing text: String, in zone: TimeZone = .current) throws {
    let refuse = { (reason: String) in VaultError.invalidDate(text, reason: reason) }
    let parts = text.split(omittingEmptySubsequences: false) { $0 == "T" || $0 == " " }
    guard parts.count <= 2 else { throw refuse(Self.expectedForm) }
    let day = parts[0].split(separator: "-", omittingEmptySubsequences: false)
    let time = parts.count == 2 ? parts[1].split(separator: ":", omittingEmptySubsequences: false) : []
    let digits = { (part: Substring, count: Int) -> Int? in
      part.count == count && part.allSatisfy { $0.isASCII && $0.isNumber } ? Int(part) : nil
    }
    guard day.count == 3, let year = digits(day[0], 4), let month = digits(day[1], 2),
      let dayOfMonth = digits(day[2], 2), parts.count == 1 || (2...3).contains(time.count)
    else { throw refuse(Self.expectedForm) }
    let clock = try time.map { part in
      guard let value = digits(part, 2) else { throw refuse(Self.expectedForm) }
      return value
    }
    let (hour, minute, second) = (
      clock.first ?? 0, clock.count > 1 ? clock[1] : 0, clock.count > 2 ? clock[2] : 0
    )
    guard year >= 1 else { throw refuse("there is no year 0") }
    guard (1...12).contains(month) else { throw refuse("there is no month \(month)") }
    let days = Self.days(inMonth: month, of: year)
    guard (1...days).contains(dayOfMonth) else {
      throw refuse("month \(month) of \(year) has \(days) days")
    }
    guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else {
      throw refuse("hours run from 00 to 23, minutes and seconds from 00 to 59")
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let noon = DateComponents(year: year, month: month, day: dayOfMonth, hour: 12)
    guard let middayDate = calendar.date(from: noon) else { throw refuse(Self.expectedForm) }
    if parts.count == 1 {
      // From midnight to the next midnight, however long the day is (clock changes), and
      // wherever it starts (a zone whose clocks skip midnight starts the day at 01:00).
      let first = calendar.startOfDay(for: middayDate)
      guard let nextNoon = calendar.date(byAdding: .day, value: 1, to: middayDate) else {
        throw refuse(Self.expectedForm)
      }
      start = Self.nanoseconds(first)
      end = Self.nanoseconds(calendar.startOfDay(for: nextNoon))
      return
    }
    let moment = DateComponents(
      year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second)
    guard let date = calendar.date(from: moment) else { throw refuse(Self.expectedForm) }
    start = Self.nanoseconds(date)
    let length: Int64 = time.count == 3 ? 1 : 60
    end =
      start.addingReportingOverflow(length * 1_000_000_000).overflow ? .max : start + length * 1_000_000_000
  }

  private static func days(inMonth month: Int, of year: Int) -> Int {
    switch month {
    case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  private static func nanoseconds(_ date: Date) -> Int64 {
    let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
    return Timestamp(seconds: seconds).nanosecondsSince1970
  }
}
