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

  /// Ids a sync peer could choose without the keys (the security review: with odd keys,
  /// (a, b) and (a + 2^63, b + 2^63) always had the same hash) do not share a slot's tag.
  func testIdsChosenWithoutTheKeysDoNotCollide() {
    var collisions = 0
    for _ in 0..<64 {
      let a = BlobID.random()
      let (high, low) = a.words
      let b = BlobID(high: high ^ (1 << 63), low: low ^ (1 << 63))
      var index = PositionIndex()
      let ids = [a]
      XCTAssertNil(index.insert(a, at: 0) { ids[$0] })
      var reads = 0
      XCTAssertNil(
        index.position(of: b) {
          reads += 1
          return ids[$0]
        })
      if reads > 0 { collisions += 1 }
    }
    XCTAssertEqual(collisions, 0, "pairs whose full hashes collide")
  }

  /// A family of chosen ids (equal words, multiples of 2^52) made clusters of equal hashes,
  /// each insert reading every earlier member from the list.
  func testAFamilyOfChosenIdsDoesNotMakeInsertsReadTheList() {
    var ids: [BlobID] = []
    var index = PositionIndex()
    var reads = 0
    index.reserveCapacity(2 * 4096) { ids[$0] }
    for j in 0..<UInt64(4096) {
      let id = BlobID(high: j << 52, low: j << 52)
      XCTAssertNil(
        index.insert(id, at: ids.count) {
          reads += 1
          return ids[$0]
        })
      ids.append(id)
    }
    XCTAssertLessThan(reads, 64, "list reads while inserting 4,096 chosen ids")
  }
}
