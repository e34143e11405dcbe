import VaultCore
import VaultTestSupport
import XCTest

/// The durations `vault serve --idle` and `vault unlock --for` and `--max` take, and the
/// words a lifetime is printed in, which must read back as the same duration.
final class IdleDurationTests: XCTestCase {
  func testDurationsParse() {
    XCTAssertEqual(IdleDuration.seconds("30s"), 30)
    XCTAssertEqual(IdleDuration.seconds("10m"), 600)
    XCTAssertEqual(IdleDuration.seconds("1h"), 3600)
    XCTAssertEqual(IdleDuration.seconds("0"), 0)
    XCTAssertEqual(IdleDuration.seconds("45"), 45)
    XCTAssertEqual(IdleDuration.seconds("2d"), 172_800)
    for text in ["", "m", "-1m", "1.5m", "10w", "1 m", "١٠m"] {
      XCTAssertNil(IdleDuration.seconds(text), text)
    }
  }

  func testPrintedDurationsUseTheLargestWholeUnit() {
    XCTAssertEqual(IdleDuration.text(45), "45s")
    XCTAssertEqual(IdleDuration.text(900), "15m")
    XCTAssertEqual(IdleDuration.text(5400), "90m")
    XCTAssertEqual(IdleDuration.text(28_800), "8h")
    XCTAssertEqual(IdleDuration.text(172_800), "2d")
  }

  func testEveryPrintedDurationReadsBackAsItself() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<10_000 {
      let seconds = Int.random(in: 1...(7 * 86400), using: &random)
      let text = IdleDuration.text(seconds)
      XCTAssertEqual(
        IdleDuration.seconds(text), Double(seconds), "\(seconds) s printed as \(text) (seed \(seed))")
    }
  }
}
