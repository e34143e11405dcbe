import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// The names of a few files found without resolving every file's
/// (`SpaceCatalog.quickShownNames`, what `list --count` and the viewer ask) are the names
/// resolved for the whole space, over random histories: colliding names, names recorded or
/// not (as an older version left them), names recorded twice (copies merged), hidden
/// imports of one photo, and deletions.
final class QuickShownNamesPropertyTests: XCTestCase {
  let folders = BlobFolders(photo: "/space/Photo", thumb: "/space/Thumb")
  static let pool = ["jolla.jpg", "jolla (1).jpg", "IMG.JPG", "a/b.jpg", "é.jpg", "..", "x.png", "y.png"]

  func testQuickNamesAreTheResolvedNames() {
    var quick = 0
    for seed in UInt64(0)..<300 {
      var random = SeededGenerator(seed: seed)
      var state = SpaceState()
      for step in Int64(1)...Int64.random(in: 1...30, using: &random) {
        let current = SpaceCatalog(entries: state.entries(), state: state, folders: folders)
        let ids = current.entries.photoIDs
        if Int.random(in: 0..<6, using: &random) == 0, let id = ids.randomElement(using: &random) {
          state.apply(.deleted(id))
          continue
        }
        var record = randomRecord(using: &random)
        if Int.random(in: 0..<6, using: &random) == 0,
          let position = ids.indices.randomElement(using: &random)
        {
          // Another import of a listed photo: hidden under it.
          record = randomRecord(using: &random, hash: current.entries.record(at: position).contentHash)
        }
        state.apply(.added(record, order: state.nextOrder(now: step)))
        switch Int.random(in: 0..<5, using: &random) {
        case 0, 1: break  // an older version's import: no name recorded
        case 2:  // a name another copy recorded too
          state.apply(
            .shownName(
              record.id, name: Self.pool.randomElement(using: &random)!, stamp: state.nextStamp(now: step)))
        default:
          let stamp = state.nextStamp(now: step)
          state.apply(.shownName(record.id, name: current.namesForImport(of: [record])[0], stamp: stamp))
          // Sometimes as an import writes them, with the names of the others kept.
          for (kept, name) in current.unrecordedNames(leavingOut: []) where Bool.random(using: &random) {
            state.apply(.shownName(kept, name: name, stamp: stamp))
          }
        }
        let after = SpaceCatalog(entries: state.entries(), state: state, folders: folders)
        let positions = after.entries.indices.shuffled(using: &random).prefix(
          Int.random(in: 1...4, using: &random))
        let records = positions.map { after.entries.record(at: $0) }
        guard let found = after.quickShownNames(of: records) else { continue }
        quick += 1
        let resolved = after.shownNames()
        for record in records {
          XCTAssertEqual(found[record.id], resolved[record.id], "seed \(seed), step \(step): \(record.name)")
        }
      }
    }
    XCTAssertGreaterThan(quick, 500, "the quick way is taken where names do not collide")
  }

  /// A big space of distinct names, none recorded (as an older version made it): a page of
  /// it is named the quick way.
  func testDistinctNamesAreNamedTheQuickWay() {
    var state = SpaceState()
    var random = SeededGenerator(seed: 1)
    for number in 0..<2000 {
      var record = randomRecord(using: &random)
      record.name = "IMG_\(number).jpg"
      state.apply(.added(record, order: state.nextOrder(now: 1)))
    }
    let catalog = SpaceCatalog(entries: state.entries(), state: state, folders: folders)
    let records = [1999, 0, 7].map { catalog.entries.record(at: $0) }
    XCTAssertEqual(
      catalog.quickShownNames(of: records).map { names in records.compactMap { names[$0.id] } },
      ["IMG_1999.jpg", "IMG_0.jpg", "IMG_7.jpg"])
  }

  /// A file whose own name is a numbered form another file took first is not named its own.
  func testANumberedNameTakenFirstIsNotTakenAgain() {
    var state = SpaceState()
    var random = SeededGenerator(seed: 2)
    for name in ["jolla.jpg", "jolla.jpg", "jolla (1).jpg"] {
      var record = randomRecord(using: &random)
      record.name = name
      state.apply(.added(record, order: state.nextOrder(now: 1)))
    }
    let catalog = SpaceCatalog(entries: state.entries(), state: state, folders: folders)
    let last = catalog.entries.record(at: 2)
    XCTAssertEqual(catalog.shownNames()[last.id], "jolla (1) (1).jpg")
    XCTAssertEqual(catalog.shownNames(of: [last])[last.id], "jolla (1) (1).jpg")
  }

  func randomRecord(using random: inout SeededGenerator, hash: String? = nil) -> PhotoRecord {
    PhotoRecord(
      id: .random(), name: Self.pool.randomElement(using: &random)!, bytes: 10, format: .jpeg, width: 4,
      height: 3, orientation: 1, modifiedAt: Timestamp(seconds: 1),
      importedAt: Timestamp(seconds: Int64.random(in: 1...100, using: &random)),
      contentHash: hash ?? hexString((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }))
  }
}
