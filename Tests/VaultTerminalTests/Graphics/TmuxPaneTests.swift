import Foundation
import VaultTestSupport
import XCTest

@testable import VaultTerminal

/// The pane read from `tmux display -p`, whatever tmux (or a program named tmux) answers.
final class TmuxPaneTests: XCTestCase {
  /// A field as a broken or hostile tmux might give it: any number, the largest ones,
  /// a word, or nothing.
  func randomField(_ random: inout SeededGenerator) -> String {
    switch Int.random(in: 0...5, using: &random) {
    case 0: return String(Int.random(in: 0...20_000, using: &random))
    case 1: return String(Int.random(in: Int.min...Int.max, using: &random))
    case 2:
      return ["\(Int.max)", "\(Int.min)", "-1", "10000", "10001", "99999999999999999999"].randomElement(
        using: &random)!
    case 3: return ["on", "off", "top", "bottom", "1", "0", "xterm-kitty"].randomElement(using: &random)!
    case 4: return ""
    default: return String(UnicodeScalar(UInt8.random(in: 32...126, using: &random)))
    }
  }

  /// Random answers never trap: a pane read from one lies on a terminal of at most
  /// `TmuxPane.farthestCell` cells each way (status lines included), and a picture can
  /// be placed at any cell of such a screen.
  func testRandomAnswersNeverTrap() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<20_000 {
      let fields = (0..<Int.random(in: 5...7, using: &random)).map { _ in randomField(&random) }
      guard let pane = TmuxPane(answer: fields.joined(separator: "|") + "\n") else { continue }
      XCTAssertTrue((0...2 * 10_000).contains(pane.top), "\(fields) (seed \(seed))")
      XCTAssertTrue((0...10_000).contains(pane.left), "\(fields) (seed \(seed))")
      _ = pane.placed([], row: Int(UInt16.max), column: Int(UInt16.max))
    }
  }

  /// The reviewer's answers: a pane at Int.max (trapped on the status line added), a
  /// status of Int.max lines, and numbers past what any terminal has are no pane.
  func testNumbersNoTerminalHasAreNoPane() {
    XCTAssertNil(TmuxPane(answer: "1|9223372036854775807|0|on|top|xterm-kitty"))
    XCTAssertNil(TmuxPane(answer: "1|0|9223372036854775807|on|top|xterm-kitty"))
    XCTAssertNil(TmuxPane(answer: "1|0|0|9223372036854775807|top|xterm-kitty"))
    XCTAssertNil(TmuxPane(answer: "1|10001|0|on|top|xterm-kitty"))
    XCTAssertNil(TmuxPane(answer: "1|0|0|-1|top|xterm-kitty"))
    XCTAssertEqual(TmuxPane(answer: "1|10000|10000|10000|top|xterm-kitty")?.top, 20_000)
  }
}
