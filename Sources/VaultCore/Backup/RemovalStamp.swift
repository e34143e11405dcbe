import Foundation

/// The name of a `removed/<stamp>` folder on a remote: the UTC time of the backup that
/// moved files there, `yyyymmddThhmmssZ`, from which its grace period is counted.
struct RemovalStamp: Equatable, Comparable {
  /// Seconds since 1970 (UTC).
  let seconds: Int

  init(seconds: Int) {
    self.seconds = seconds
  }

  init(_ date: Date) {
    seconds = Int(date.timeIntervalSince1970.rounded(.down))
  }

  /// Reads a folder's name; nil for a name that is not a stamp.
  init?(name: String) {
    let digits = Array(name.utf8)
    guard digits.count == 16, digits[8] == UInt8(ascii: "T"), digits[15] == UInt8(ascii: "Z") else {
      return nil
    }
    func number(_ range: Range<Int>) -> Int? {
      Int(String(decoding: digits[range], as: UTF8.self))
    }
    guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
      let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15)
    else { return nil }
    var time = tm()
    time.tm_year = Int32(year - 1900)
    time.tm_mon = Int32(month - 1)
    time.tm_mday = Int32(day)
    time.tm_hour = Int32(hour)
    time.tm_min = Int32(minute)
    time.tm_sec = Int32(second)
    let seconds = timegm(&time)
    guard seconds >= 0 else { return nil }
    self.init(seconds: seconds)
    guard self.name == name else { return nil }
  }

  var name: String {
    var time = tm()
    var value = time_t(seconds)
    gmtime_r(&value, &time)
    return String(
      format: "%04d%02d%02dT%02d%02d%02dZ", Int(time.tm_year) + 1900, Int(time.tm_mon) + 1, Int(time.tm_mday),
      Int(time.tm_hour), Int(time.tm_min), Int(time.tm_sec))
  }

  /// When files moved aside at this stamp may go, after `days` of grace.
  func expiry(afterDays days: Int) -> Date {
    Date(timeIntervalSince1970: Double(seconds + days * 86_400))
  }

  static func < (left: RemovalStamp, right: RemovalStamp) -> Bool { left.seconds < right.seconds }
}
