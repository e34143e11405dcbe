import XCTest

@testable import VaultCore

/// The table that finds a listed photo by id (`PositionIndex`), against a `Dictionary`.
final class PositionIndexTests: XCTestCase {
  func testTheIndexAgreesWithADictionaryUnderRandomChanges() {
    var generator = SeededGenerator(seed: 20)
    for round in 0..<20 {
      var ids: [BlobID] = []
      var index = PositionIndex()
      var model: [BlobID: Int] = [:]
      // Ids that share a word, as well as random ones: the hash mixes both words.
      let shared = UInt64.random(in: .min ... .max, using: &generator)
      for step in 0..<(round * 300) {
        let choice = Int.random(in: 0..<10, using: &generator)
        if choice < 6 || ids.isEmpty {
          // A new id, or one seen before (an addition of a photo listed already).
          let id =
            !ids.isEmpty && choice == 0
            ? ids.randomElement(using: &generator)!
            : BlobID(
              high: step % 3 == 0 ? shared : .random(in: .min ... .max, using: &generator),
              low: .random(in: .min ... .max, using: &generator))
          let existing = index.insert(id, at: ids.count) { ids[$0] }
          XCTAssertEqual(existing, model[id])
          if existing == nil {
            model[id] = ids.count
            ids.append(id)
          }
        } else if choice < 8 {
          let id = ids.randomElement(using: &generator)!
          XCTAssertEqual(index.remove(id) { ids[$0] }, model.removeValue(forKey: id))
        } else {
          let id = ids.randomElement(using: &generator)!
          XCTAssertEqual(index.position(of: id) { ids[$0] }, model[id])
        }
        XCTAssertEqual(index.count, model.count)
      }
      for id in ids { XCTAssertEqual(index.position(of: id) { ids[$0] }, model[id]) }
      XCTAssertNil(index.position(of: .random()) { ids[$0] })
      index.reserveCapacity(ids.count * 3) { ids[$0] }
      for id in ids { XCTAssertEqual(index.position(of: id) { ids[$0] }, model[id], "after growing") }
    }
  }
}
