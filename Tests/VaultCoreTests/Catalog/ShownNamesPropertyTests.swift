import Foundation
import Synchronization
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Shown names (`ShownNames`) over random histories of two copies of a space: imports of
/// colliding names (some as an older version made them, with no name recorded), deletions,
/// and merges as a union of both journals. A copy's journal is written as `Space` writes it:
/// an import records `namesForImport`, and it and a deletion record `unrecordedNames`.
final class ShownNamesPropertyTests: XCTestCase {
  let folders = BlobFolders(photo: "/space/Photo", thumb: "/space/Thumb")
  static let pool = ["jolla.jpg", "jolla (1).jpg", "IMG.JPG", "img.jpg", "a/b.jpg", "jolla.jpg"]

  struct Copy {
    private(set) var journal: [JournalEntry] = []
    /// The journal applied.
    private(set) var state = SpaceState()
    /// The name each file showed when it was first seen on this copy.
    var firstShown: [BlobID: String] = [:]

    /// The entries' bytes, so that a merge adds each entry once (as a union of files does).
    private var held = Set<[UInt8]>()

    mutating func append(_ entry: JournalEntry) {
      guard held.insert(JournalEntry.encodeAll([entry])).inserted else { return }
      journal.append(entry)
      state.apply(entry)
    }

    /// Takes the entries of `other` too (a union sync), after its own.
    mutating func merge(_ other: [JournalEntry]) {
      for entry in other { append(entry) }
    }
  }

  func catalog(_ state: SpaceState) -> SpaceCatalog {
    SpaceCatalog(entries: state.entries(), state: state, folders: folders)
  }

  func testANameOnceShownStaysNamesAreUniqueAndMergedCopiesAgree() {
    for seed in UInt64(0)..<200 {
      var random = SeededGenerator(seed: seed)
      var copies = [Copy(), Copy()]
      var clock: Int64 = 1
      for _ in 0..<Int.random(in: 1...40, using: &random) {
        clock += 1
        let side = Int.random(in: 0...1, using: &random)
        let state = copies[side].state
        let current = catalog(state)
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5:
          let record = randomRecord(using: &random)
          copies[side].append(.added(record, order: state.nextOrder(now: clock)))
          // An older version recorded no name.
          if Int.random(in: 0..<4, using: &random) > 0 {
            let stamp = state.nextStamp(now: clock)
            let name = current.namesForImport(of: [record])[0]
            copies[side].append(.shownName(record.id, name: name, stamp: stamp))
            for (kept, name) in current.unrecordedNames(leavingOut: []) {
              copies[side].append(.shownName(kept, name: name, stamp: stamp))
            }
          }
        case 5..<8:
          guard let id = current.entries.photoIDs.randomElement(using: &random) else { continue }
          let stamp = state.nextStamp(now: clock)
          copies[side].append(.deleted(id))
          for (kept, name) in current.unrecordedNames(leavingOut: [id]) {
            copies[side].append(.shownName(kept, name: name, stamp: stamp))
          }
        default:
          let before = copies.map { catalog($0.state).shownNames() }
          let recorded = copies.map { $0.state.recordedNames.merged().mapValues(\.name) }
          let (first, second) = (copies[0].journal, copies[1].journal)
          copies[0].merge(second)
          copies[1].merge(first)
          let merged = copies.map { catalog($0.state).shownNames() }
          XCTAssertEqual(merged[0], merged[1], "seed \(seed): merged copies disagree")
          // A name moves in a merge only when the journal did not record it (an older
          // version's import since the last write), or the other copy recorded it too.
          for side in 0...1 {
            for (id, name) in before[side] where merged[side][id].map({ $0 != name }) ?? false {
              XCTAssertTrue(
                recorded[side][id] != name
                  || recorded[1 - side].contains { $0.key != id && $0.value == name },
                "seed \(seed): \(name) moved in a merge that brought no other file recording it")
              copies[side].firstShown[id] = merged[side][id]
            }
          }
        }
        check(&copies[side], seed: seed)
      }
    }
  }

  /// An import's write hands the shown names on to the next catalog (`SpaceCatalog.appending`)
  /// instead of resolving them again: over random imports (colliding names, some with no name
  /// recorded as an older version made them, some of a photo already listed, which are
  /// hidden) and deletions, the catalog so made shows the names, leaves unrecorded the names,
  /// and gives an import the names that a catalog made afresh of the same journal does.
  func testNamesHandedOnByAnImportAreTheNamesResolvedAfresh() {
    for seed in UInt64(0)..<200 {
      var random = SeededGenerator(seed: seed)
      var state = SpaceState()
      var current = catalog(state)
      for step in Int64(1)...Int64.random(in: 1...60, using: &random) {
        _ = current.shownNames()
        if Int.random(in: 0..<6, using: &random) == 0,
          let id = current.entries.photoIDs.randomElement(using: &random)
        {
          for entry in [.deleted(id)]
            + namesKept(by: current, leavingOut: [id], stamp: state.nextStamp(now: step))
          {
            state.apply(entry)
          }
          current = catalog(state)
          continue
        }
        var records: [PhotoRecord] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
          var record = randomRecord(using: &random)
          if Int.random(in: 0..<5, using: &random) == 0,
            let listed = current.entries.photoIDs.randomElement(using: &random)
          {
            record = PhotoRecord(
              id: .random(), name: record.name, bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
              modifiedAt: Timestamp(seconds: 1), importedAt: record.importedAt,
              contentHash: current.entries[current.entries.photoIDs.firstIndex(of: listed)!].record
                .contentHash)
          }
          records.append(record)
        }
        let stamp = state.nextStamp(now: step)
        var order = state.nextOrder(now: step)
        var changes: [JournalEntry] = []
        let recording = Int.random(in: 0..<4, using: &random) > 0
        for (record, name) in zip(records, current.namesForImport(of: records)) {
          changes.append(.added(record, order: order))
          if recording { changes.append(.shownName(record.id, name: name, stamp: stamp)) }
          order += 1
        }
        changes += namesKept(by: current, leavingOut: [], stamp: stamp)
        for change in changes { state.apply(change) }
        // A browser may hold the catalog an import's write replaces: it reads as it did.
        let held = Bool.random(using: &random) ? (current, Array(current.entries)) : nil
        current = SpaceCatalog.appending(
          records.map { IndexEntry(record: state.photo($0.id)?.record ?? $0, selected: false) }, to: current,
          by: changes, state: state)
        XCTAssertEqual(current.entries, state.entries(), "seed \(seed): an import appends")
        if let (catalog, entries) = held {
          XCTAssertEqual(Array(catalog.entries), entries, "seed \(seed): a held catalog changed")
        }
        let afresh = catalog(state)
        XCTAssertEqual(current.shownNames(), afresh.shownNames(), "seed \(seed): names handed on differ")
        XCTAssertEqual(
          current.unrecordedNames(leavingOut: []), afresh.unrecordedNames(leavingOut: []),
          "seed \(seed): unrecorded names handed on differ")
        let next = (0..<3).map { _ in randomRecord(using: &random) }
        XCTAssertEqual(
          current.namesForImport(of: next), afresh.namesForImport(of: next),
          "seed \(seed): names for an import differ")
      }
    }
  }

  /// The entries a write records for the names `catalog` shows that are not recorded, as
  /// `Space.namesKept` writes them.
  func namesKept(by catalog: SpaceCatalog, leavingOut ids: Set<BlobID>, stamp: Int64) -> [JournalEntry] {
    catalog.unrecordedNames(leavingOut: ids).sorted { $0.key < $1.key }.map {
      .shownName($0.key, name: $0.value, stamp: stamp)
    }
  }

  /// Imports into a space resolve its names once, when the first import asks for them, not
  /// at every write: the cost of a photo does not grow with the space.
  func testImportsIntoASpaceResolveItsNamesOnce() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("names"))
    let space = try vault.unlock(password: password("names"), access: .write)
    var random = SeededGenerator(seed: 35)
    let before = ShownNames.resolutions.load(ordering: .relaxed)
    try space.appendImported((0..<20).map { _ in randomRecord(using: &random) })
    for _ in 0..<10 {
      try space.appendImported((0..<3).map { _ in randomRecord(using: &random) })
    }
    XCTAssertEqual(
      ShownNames.resolutions.load(ordering: .relaxed) - before, 1, "names resolved at every write")
    XCTAssertEqual(space.catalog.shownNames(), catalog(try XCTUnwrap(space.journal?.state)).shownNames())
    XCTAssertEqual(Set(space.catalog.shownNames().values).count, 50)
  }

  /// Every file shows a name no other file shows, and the name it first showed here.
  func check(_ copy: inout Copy, seed: UInt64) {
    let names = catalog(copy.state).shownNames()
    XCTAssertEqual(Set(names.values).count, names.count, "seed \(seed): a name shown twice: \(names)")
    for (id, name) in names {
      if let first = copy.firstShown[id] {
        XCTAssertEqual(name, first, "seed \(seed): a shown name moved")
      } else {
        copy.firstShown[id] = name
      }
    }
  }

  func randomRecord(using random: inout SeededGenerator) -> PhotoRecord {
    PhotoRecord(
      id: .random(), name: Self.pool.randomElement(using: &random)!, bytes: 10, format: .jpeg, width: 4,
      height: 3, orientation: 1, modifiedAt: Timestamp(seconds: 1),
      importedAt: Timestamp(seconds: Int64.random(in: 1...100, using: &random)),
      contentHash: hexString((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }))
  }

  /// The entry's bytes, as docs/FORMAT.md gives them.
  func testAShownNameEntryRoundTripsAndAMalformedOneIsDamage() throws {
    let id = try XCTUnwrap(BlobID(hex: "00112233445566778899aabbccddeeff"))
    let bytes = JournalEntry.encodeAll([.shownName(id, name: "IMG (1).jpg", stamp: 5)])
    XCTAssertEqual(
      hexString(bytes),
      "0b00112233445566778899aabbccddeeff" + "0000000000000005" + "000b" + "494d4720283129" + "2e6a7067"
        + "00")
    var read: [JournalEntry] = []
    _ = try bytes.withUnsafeBytes { try JournalEntry.decodeAll($0) { read.append($0) } }
    XCTAssertEqual(read, [.shownName(id, name: "IMG (1).jpg", stamp: 5)])
    var empty = bytes
    empty[26] = 0
    XCTAssertThrowsError(try empty.withUnsafeBytes { try JournalEntry.decodeAll($0) { _ in } })
  }

  /// The latest stamp wins, a deletion removes the name, and a name kept for an id not yet
  /// added is its name once it comes; in any order.
  func testAShownNameMergesInAnyOrder() {
    let record = PhotoRecord(
      id: .random(), name: "a.jpg", bytes: 1, format: .jpeg, width: 1, height: 1, orientation: 1,
      modifiedAt: Timestamp(seconds: 1), importedAt: Timestamp(seconds: 1),
      contentHash: String(repeating: "ab", count: 32))
    let entries: [JournalEntry] = [
      .shownName(record.id, name: "a (2).jpg", stamp: 3), .added(record, order: 1),
      .shownName(record.id, name: "a.jpg", stamp: 2),
    ]
    for order in [entries, entries.reversed(), [entries[1], entries[0], entries[2]]] {
      var state = SpaceState()
      for entry in order { state.apply(entry) }
      XCTAssertEqual(catalog(state).shownNames(), [record.id: "a (2).jpg"])
      XCTAssertEqual(state.compacted().filter { if case .shownName = $0 { true } else { false } }.count, 1)
      state.apply(.deleted(record.id))
      XCTAssertTrue(state.recordedNames.isEmpty)
    }
  }
}
