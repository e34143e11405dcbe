import VaultTestSupport
import XCTest

@testable import VaultCore

/// `LayeredDictionary` over random histories of changes, some copies kept along the way as
/// catalogs keep the recorded names: every copy reads as the plain dictionary it was a copy
/// of, whatever was changed since in the original, and the original as the plain
/// dictionary changed alike.
final class LayeredDictionaryTests: XCTestCase {
  func testCopiesAndChangesReadAsPlainDictionaries() {
    for seed in UInt64(0)..<100 {
      var random = SeededGenerator(seed: seed)
      var layered = LayeredDictionary<Int, Int>()
      var plain: [Int: Int] = [:]
      var copies: [(layered: LayeredDictionary<Int, Int>, plain: [Int: Int])] = []
      // Keys from a range small enough that changes hit keys already there, and removals
      // keys of the base, of the recent changes, and keys never set.
      let keys = Int.random(in: 1...3000, using: &random)
      for step in 0..<Int.random(in: 1...6000, using: &random) {
        let key = Int.random(in: 0..<keys, using: &random)
        let value: Int? = Int.random(in: 0..<4, using: &random) == 0 ? nil : step
        layered[key] = value
        plain[key] = value
        if Int.random(in: 0..<64, using: &random) == 0 { copies.append((layered, plain)) }
        if Int.random(in: 0..<256, using: &random) == 0, !copies.isEmpty {
          copies.remove(at: Int.random(in: 0..<copies.count, using: &random))
        }
      }
      copies.append((layered, plain))
      for (index, copy) in copies.enumerated() {
        XCTAssertEqual(copy.layered.merged(), copy.plain, "seed \(seed): copy \(index) differs")
        XCTAssertEqual(copy.layered.count, copy.plain.count, "seed \(seed): copy \(index)'s count differs")
        XCTAssertEqual(copy.layered.isEmpty, copy.plain.isEmpty, "seed \(seed)")
        for key in 0..<keys where copy.layered[key] != copy.plain[key] {
          XCTFail("seed \(seed): copy \(index) reads \(String(describing: copy.layered[key])) for \(key)")
          break
        }
      }
    }
  }
}
