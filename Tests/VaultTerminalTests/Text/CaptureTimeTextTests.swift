import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// The text forms of a date taken, as the list, the grid, the viewer and `--json` show it.
final class CaptureTimeTextTests: XCTestCase {
  static func time(_ text: String, nanoseconds: Int32 = 0, offset: Int16? = nil) -> CaptureTime {
    let digits = text.split(whereSeparator: { !$0.isNumber }).map { Int($0)! }
    let seconds = CaptureTime.wallClockSeconds(
      year: digits[0], month: digits[1], day: digits[2], hour: digits[3], minute: digits[4], second: digits[5]
    )!
    return CaptureTime(localSeconds: seconds, nanoseconds: nanoseconds, utcOffsetMinutes: offset)
  }

  func testWallClockPrints() {
    let taken = Self.time("2024-06-01 14:03:22", nanoseconds: 250_000_000, offset: 120)
    XCTAssertEqual(taken.iso8601, "2024-06-01T14:03:22.25+02:00")
    XCTAssertEqual(taken.shownDate, "2024-06-01 14:03")
    XCTAssertEqual(taken.shownDay, "2024-06-01")
    XCTAssertEqual(taken.shownInFull, "2024-06-01 14:03:22 +02:00")
    XCTAssertEqual(Self.time("0987-01-02 03:04:05", offset: -570).iso8601, "0987-01-02T03:04:05-09:30")
    XCTAssertEqual(Self.time("2019-12-31 23:59:59").iso8601, "2019-12-31T23:59:59")
    XCTAssertEqual(Self.time("2019-12-31 23:59:59", offset: 0).shownInFull, "2019-12-31 23:59:59 +00:00")
    XCTAssertEqual(Self.time("2019-12-31 23:59:59", nanoseconds: 1).iso8601, "2019-12-31T23:59:59.000000001")
  }
}
