import Foundation
import VaultCore
import VaultTestSupport
import XCTest

/// Text from names and records shown on a terminal, over random bytes (seeded; a failure
/// prints its seed): nothing unsafe gets through, what is safe is kept in order, escaping
/// twice changes nothing more, and JSON made safe reads back as the same value.
final class TerminalSafeTextPropertyTests: XCTestCase {
  func randomText(_ random: inout SeededGenerator) -> String {
    let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ -> UInt8 in
      // Half the bytes are controls, so that most texts hold several.
      Bool.random(using: &random)
        ? UInt8.random(in: 0...0x20, using: &random) : UInt8.random(in: 0...255, using: &random)
    }
    var text = String(decoding: bytes, as: UTF8.self)
    if Bool.random(using: &random) {
      text += ["\u{202E}", "\u{2066}", "\u{85}", "\u{2028}"].randomElement(using: &random)!
    }
    return text
  }

  func testEscapedTextHoldsNothingUnsafeKeepsTheRestAndIsStable() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<5000 {
      let text = randomText(&random)
      let shown = TerminalSafeText.escaped(text)
      let message = "\(Array(text.unicodeScalars.map(\.value))) (seed \(seed))"
      XCTAssertFalse(shown.unicodeScalars.contains(where: TerminalSafeText.isUnsafe), message)
      XCTAssertEqual(TerminalSafeText.escaped(shown), shown, message)
      let kept = text.unicodeScalars.filter { !TerminalSafeText.isUnsafe($0) }
      var rest = Substring(shown).unicodeScalars[...]
      for scalar in kept {
        guard let found = rest.firstIndex(of: scalar) else {
          return XCTFail("lost U+\(scalar.value): " + message)
        }
        rest = rest[rest.index(after: found)...]
      }
      if kept.count == text.unicodeScalars.count { XCTAssertEqual(shown, text, message) }
    }
  }

  func testJSONMadeSafeReadsBackAsTheSameValue() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<2000 {
      let values = (0..<3).map { _ in randomText(&random) }
      let json = String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
      let safe = TerminalSafeText.json(json)
      let message = "\(values) (seed \(seed))"
      XCTAssertFalse(safe.unicodeScalars.contains(where: TerminalSafeText.isUnsafe), message)
      XCTAssertEqual(try JSONDecoder().decode([String].self, from: Data(safe.utf8)), values, message)
    }
  }
}
