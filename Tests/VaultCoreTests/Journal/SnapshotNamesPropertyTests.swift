import VaultTestSupport
import XCTest

@testable import VaultCore

/// A snapshot's shown names are read as items of their own (`SnapshotItem.shownName`), into
/// room made for them at the first: over random snapshots of photos, names (several for one
/// file, names of files not listed, of deleted files, names from the future) and other
/// entries, applying the snapshot whole and a few bytes at a time gives the state plain
/// decoding gives, or the same refusal.
final class SnapshotNamesPropertyTests: XCTestCase {
  func testNamesOfASnapshotApplyAsPlainDecodingDoes() throws {
    // Past the leeway a stamp may be ahead of the clock by (a day past it: the test takes time).
    let future = JournalEntry.latestStamp() + 86_400 * 1_000_000_000
    for seed in UInt64(0)..<100 {
      var random = SeededGenerator(seed: seed)
      let ids = (0..<Int.random(in: 1...40, using: &random)).map { _ in BlobID.random() }
      var entries: [JournalEntry] = []
      for (order, id) in ids.enumerated() where Bool.random(using: &random) {
        entries.append(.added(record(id, using: &random), order: Int64(order)))
      }
      for _ in 0..<Int.random(in: 0...80, using: &random) {
        let id = ids.randomElement(using: &random)!
        switch Int.random(in: 0..<20, using: &random) {
        case 0: entries.append(.deleted(id))
        case 1: entries.append(.selection(id, selected: true, stamp: Int64.random(in: 1...9, using: &random)))
        case 2 where seed % 8 == 0:
          entries.append(.shownName(id, name: "future.jpg", stamp: future))
        default:
          let name = ["IMG.jpg", "a.png", "é.heic", "IMG (1).jpg"].randomElement(using: &random)!
          entries.append(.shownName(id, name: name, stamp: Int64.random(in: 1...9, using: &random)))
        }
      }
      let plaintext = JournalEntry.encodeAll(entries, padded: true)
      var decoded = SpaceState()
      let plain = plaintext.withUnsafeBytes { bytes in
        Result { try JournalEntry.decodeAll(bytes) { decoded.apply($0) } }
      }
      var refusals: [String] = []
      for step in [nil, Int.random(in: 1...64, using: &random)] {
        var state = SpaceState()
        do {
          try state.applySnapshot(try SnapshotBytes(plaintext), inSteps: step)
          XCTAssertNoThrow(try plain.get(), "seed \(seed): plain decoding refused what the snapshot took")
          XCTAssertEqual(
            state.compacted(), decoded.compacted(), "seed \(seed), step \(String(describing: step))")
          XCTAssertEqual(state.recordedNames.merged(), decoded.recordedNames.merged(), "seed \(seed)")
        } catch {
          XCTAssertThrowsError(try plain.get(), "seed \(seed): the snapshot refused what plain decoding took")
          refusals.append("\(error)")
        }
      }
      XCTAssertEqual(Set(refusals).count, min(1, refusals.count), "seed \(seed): \(refusals)")
    }
  }

  private func record(_ id: BlobID, using random: inout SeededGenerator) -> PhotoRecord {
    PhotoRecord(
      id: id, name: "IMG.jpg", bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
      modifiedAt: Timestamp(seconds: 1),
      importedAt: Timestamp(seconds: Int64.random(in: 1...100, using: &random)),
      contentHash: hexString((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }))
  }
}
