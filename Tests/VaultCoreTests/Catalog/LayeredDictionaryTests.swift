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

  /// Changes applied together (`update(_:where:)`, a snapshot's names), some of them keys in
  /// increasing order past every key before (held in order, as a snapshot's names are), some
  /// in any order, leave it as the same changes applied one at a time to a plain
  /// dictionary, a change winning where the key has no value or `replaces` says so; single
  /// changes and removals of keys of either kind, copies kept before read as they were, and
  /// `contains(where:)` finds what the plain dictionary's does.
  func testChangesTogetherReadAsChangesOneByOne() {
    let replaces: (Int, Int) -> Bool = { new, existing in new % 7 > existing % 7 }
    for seed in UInt64(0)..<100 {
      var random = SeededGenerator(seed: seed)
      var layered = LayeredDictionary<Int, Int>()
      var plain: [Int: Int] = [:]
      var copies: [(layered: LayeredDictionary<Int, Int>, plain: [Int: Int])] = []
      var keys = Int.random(in: 1...2000, using: &random)
      for step in 0..<Int.random(in: 1...200, using: &random) {
        if Int.random(in: 0..<3, using: &random) == 0 {
          // Single changes, some of them removals, leave recent changes over a shared base.
          let key = Int.random(in: 0..<keys, using: &random)
          let value: Int? = Bool.random(using: &random) ? nil : step
          layered[key] = value
          plain[key] = value
        } else {
          let inOrder = Bool.random(using: &random)
          let changes = (0..<Int.random(in: 0...100, using: &random)).map { _ in
            // In order: past every key so far, sometimes the same key again.
            if inOrder { keys += Int.random(in: 0...2, using: &random) }
            return (
              inOrder ? keys - 1 : Int.random(in: 0..<keys, using: &random),
              Int.random(in: 0..<1000, using: &random)
            )
          }
          layered.update(changes, where: replaces)
          for (key, value) in changes {
            if let existing = plain[key], !replaces(value, existing) { continue }
            plain[key] = value
          }
        }
        if Int.random(in: 0..<8, using: &random) == 0 { copies.append((layered, plain)) }
      }
      copies.append((layered, plain))
      for (index, copy) in copies.enumerated() {
        XCTAssertEqual(copy.layered.merged(), copy.plain, "seed \(seed): copy \(index) differs")
        XCTAssertEqual(copy.layered.count, copy.plain.count, "seed \(seed): copy \(index)'s count differs")
        for probe in 0..<8 {
          let predicate: (Int, Int) -> Bool = { key, value in (key + value) % 50 == probe }
          XCTAssertEqual(
            copy.layered.contains(where: predicate), copy.plain.contains(where: predicate),
            "seed \(seed): copy \(index), probe \(probe)")
        }
      }
    }
  }
}
