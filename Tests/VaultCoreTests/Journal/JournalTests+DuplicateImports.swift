import Foundation
import XCTest

@testable import VaultCore

/// Photos imported on two copies apart, some of them the same files (equal keyed content
/// hashes): however the two copies' entries are read (interleaved, shuffled, some twice, or
/// from a snapshot), each file is one item, listed as its earliest import with that import's
/// selection, in the albums of any of its imports.
extension JournalTests {
  func testPhotosImportedOnTwoCopiesApartListOnceWhateverTheOrder() throws {
    var generator = SeededGenerator(seed: 23)
    for round in 0..<12 {
      let entries = twoCopiesImportingApart(using: &generator)
      var expected = SpaceState()
      for entry in entries[0] + entries[1] { expected.apply(entry) }
      let listed = Self.listedItems(expected)
      assertEachFileListedOnceAsItsEarliestImport(expected, round: round)
      for _ in 0..<20 {
        var state = SpaceState()
        var sides = entries
        // A random interleaving of the copies' entries, then some of them again.
        while !sides[0].isEmpty || !sides[1].isEmpty {
          let side = sides[0].isEmpty ? 1 : sides[1].isEmpty ? 0 : Int.random(in: 0...1, using: &generator)
          state.apply(sides[side].removeFirst())
        }
        for entry in (entries[0] + entries[1]).shuffled(using: &generator).prefix(8) { state.apply(entry) }
        XCTAssertEqual(Self.listedItems(state), listed, "round \(round)")
      }
      // The same through a space opened from a snapshot (the hashes read from its bytes)
      // and from the compaction: the browser lists the items, the albums carry them over.
      var expectedAlbums: [String: Set<BlobID>] = [:]
      let imports = DuplicateImports(expected.entries())
      for album in expected.albums() { expectedAlbums[album.name] = Set(album.photoIDs.map(imports.listed)) }
      for snapshot in [(entries[0] + entries[1]).shuffled(using: &generator), expected.compacted()] {
        try writeSnapshot(snapshot)
        let reopened = try reopen()
        let browser = reopened.makeBrowser()
        let shown = (0..<browser.count).map { browser.photo(at: $0)! }
        XCTAssertEqual(shown.map { "\($0.record.id.hex) \($0.isSelected)" }, listed, "round \(round)")
        XCTAssertEqual(
          Dictionary(uniqueKeysWithValues: reopened.albums.map { ($0.name, $0.photoIDs) }), expectedAlbums,
          "round \(round)")
        space = reopened
      }
    }
  }

  /// Hashes are told apart by their first 8 bytes first: two photos whose hashes share them
  /// but differ later are two items, and a third equal to one of them is its hidden import.
  func testHashesAlikeInTheirFirstBytesAreTwoPhotos() {
    let prefix = String(repeating: "ab", count: 8)
    let hashes = [prefix + String(repeating: "01", count: 24), prefix + String(repeating: "02", count: 24)]
    let records = [hashes[0], hashes[1], hashes[0]].map { hash in
      PhotoRecord(
        id: .random(), name: "p", bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
        modifiedAt: Timestamp(seconds: 1), importedAt: Timestamp(seconds: 2), contentHash: hash)
    }
    var state = SpaceState()
    for (order, record) in records.enumerated() { state.apply(.added(record, order: Int64(order + 1))) }
    let imports = DuplicateImports(state.entries())
    XCTAssertEqual(imports.keptImport, [records[2].id: records[0].id])
    XCTAssertEqual(imports.all(of: records[2].id), [records[0].id, records[2].id])
    XCTAssertEqual(imports.all(of: records[1].id), [records[1].id])
  }

  /// Hashes chosen alike in the bits the table's keys were once made of (the first 32), or
  /// alike but for their last word (counting up): 8,000 of either, 500 imported twice, are
  /// each inserted after a few slots looked at (the table keyed by those 32 bits looked at
  /// half its photos at every insert, 10 s to open), and each is found at its first import,
  /// with its records decoded or in a snapshot's bytes.
  func testHashesChosenAlikeDoNotCrowdTheImportsTable() throws {
    var random = SeededGenerator(seed: 35)
    func hex(bytes: Int) -> String {
      hexString((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &random) })
    }
    let sharedStart = hex(bytes: 28)
    let families = [
      (0..<8_000).map { _ in "5eed0035" + hex(bytes: 28) },
      (0..<8_000).map { sharedStart + String(format: "%08x", $0) },
    ]
    for hashes in families {
      let photos = (hashes + hashes.prefix(500)).enumerated().map { order, hash in
        JournalEntry.added(
          PhotoRecord(
            id: .random(), name: "p", bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
            modifiedAt: Timestamp(seconds: 1), importedAt: Timestamp(seconds: 2), contentHash: hash),
          order: Int64(order + 1))
      }
      var decoded = SpaceState()
      for photo in photos { decoded.apply(photo) }
      var encoded = SpaceState()
      let snapshot = try SnapshotBytes(JournalEntry.encodeAll(photos, padded: true))
      try encoded.applySnapshot(snapshot, inSteps: 1_000)
      for entries in [decoded.entries(), encoded.entries()] {
        let imports = DuplicateImports(entries)
        XCTAssertLessThan(Double(imports.probesForTesting) / Double(entries.count), 4)
        XCTAssertEqual(imports.keptImport.count, 500)
        for (position, hash) in hashes.enumerated() {
          XCTAssertEqual(imports.position(of: ContentHash(hash), in: entries), position)
        }
      }
    }
  }

  /// An import's catalog takes over the imports of one photo found in the list before it
  /// (`DuplicateImports.appending`): over random lists of a few hashes (some alike in their
  /// first bytes) appended in random chunks, past the table's growth, what it finds is what
  /// a pass over the whole list finds.
  func testImportsOfOnePhotoTakenOverByAnAppendAreThoseFoundAfresh() {
    for seed in UInt64(0)..<100 {
      var random = SeededGenerator(seed: seed)
      let prefix = String(repeating: "cd", count: 8)
      let hashes = (0..<Int.random(in: 1...12, using: &random)).map { _ in
        let tail = hexString((0..<24).map { _ in UInt8.random(in: 0...255, using: &random) })
        return Bool.random(using: &random)
          ? prefix + tail : hexString((0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }) + tail
      }
      var entries = PhotoEntries()
      var imports = DuplicateImports(entries)
      while entries.count < 60 {
        for _ in 0..<Int.random(in: 1...9, using: &random) {
          let record = PhotoRecord(
            id: .random(), name: "p", bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
            modifiedAt: Timestamp(seconds: 1), importedAt: Timestamp(seconds: 2),
            contentHash: hashes.randomElement(using: &random)!)
          entries.append(IndexEntry(record: record, selected: false))
        }
        imports = imports.appending(entries)
        Self.assertFoundAfresh(imports, of: entries, hashes: hashes, seed: seed)
      }
    }
  }

  /// The imports of one photo are found while a snapshot is applied, a step at a time as it
  /// is decrypted (`SpaceState.findImportsOfListed`), and the catalog takes them over: with
  /// entries after the snapshot that append photos, delete one (a hole in the list) or add
  /// one before the others (out of order), they are those a pass over the whole list finds.
  func testImportsFoundWhileASnapshotIsAppliedAreThoseFoundAfresh() throws {
    for seed in UInt64(0)..<80 {
      var random = SeededGenerator(seed: seed)
      let hashes = (0..<Int.random(in: 1...8, using: &random)).map { _ in
        hexString((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
      }
      func added(order: Int) -> JournalEntry {
        .added(
          PhotoRecord(
            id: .random(), name: "p", bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
            modifiedAt: Timestamp(seconds: 1), importedAt: Timestamp(seconds: 2),
            contentHash: hashes.randomElement(using: &random)!),
          order: Int64(order))
      }
      let photos = (0..<Int.random(in: 1...150, using: &random)).map { added(order: $0 + 10) }
      var state = SpaceState()
      try state.applySnapshot(
        try SnapshotBytes(JournalEntry.encodeAll(photos, padded: true)),
        inSteps: Int.random(in: 40...2_000, using: &random))
      let change = seed % 4
      switch change {
      case 1:
        for order in 0..<Int.random(in: 1...40, using: &random) { state.apply(added(order: order + 500)) }
      case 2: state.apply(.deleted(state.entries().id(at: Int.random(in: 0..<photos.count, using: &random))))
      case 3: state.apply(added(order: 1))
      default: break
      }
      let (entries, found) = state.takeEntriesWithImportsFound()
      XCTAssertEqual(entries, state.entries(), "seed \(seed)")
      XCTAssertEqual(found == nil, change >= 2, "seed \(seed)")
      let imports = CatalogTables(entries: entries, state: state, importsFound: found).imports
      Self.assertFoundAfresh(imports, of: entries, hashes: hashes, seed: seed)
    }
  }

  /// `imports` of `entries` are those a pass over the whole list finds: the same kept and
  /// other imports, and the same photo found for each of `hashes`.
  static func assertFoundAfresh(
    _ imports: DuplicateImports, of entries: PhotoEntries, hashes: [String], seed: UInt64,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let afresh = DuplicateImports(entries)
    XCTAssertEqual(imports.keptImport, afresh.keptImport, "seed \(seed)", file: file, line: line)
    XCTAssertEqual(imports.otherImports, afresh.otherImports, "seed \(seed)", file: file, line: line)
    for hash in hashes {
      XCTAssertEqual(
        imports.position(of: ContentHash(hash), in: entries),
        afresh.position(of: ContentHash(hash), in: entries),
        "seed \(seed)", file: file, line: line)
    }
  }

  /// A big snapshot (read while it is decrypted, `SnapshotDecryption`) of photos imported
  /// twice, and photos imported after it: the space lists each file once, its imports are
  /// those a pass over its list finds.
  func testABigSnapshotsImportsOfOnePhotoAreFoundAsItIsRead() throws {
    let originals = (0..<9_000).map { record(named: "photo \($0)") }
    let again = originals.shuffled().prefix(3_000).map { original in
      var copy = record(named: "again")
      copy.contentHash = original.contentHash
      return copy
    }
    let photos = (originals + again.prefix(1_500)).enumerated().map {
      JournalEntry.added($1, order: Int64($0 + 1))
    }
    XCTAssertGreaterThan(JournalEntry.encodeAll(photos).count, SpaceJournal.parallelDecodingSize)
    try writeSnapshot(photos)
    space = try reopen(.write)
    try space.appendImported(Array(again.suffix(1_500)) + [record(named: "new")])
    let reopened = try reopen()
    let afresh = DuplicateImports(reopened.entries)
    XCTAssertEqual(afresh.keptImport.count, 3_000)
    XCTAssertEqual(reopened.duplicateImports().keptImport, afresh.keptImport)
    XCTAssertEqual(reopened.duplicateImports().otherImports, afresh.otherImports)
    XCTAssertEqual(reopened.catalog.count, 9_001)
    space = reopened
  }

  /// The listed items of `state` as the browser shows them: the id and selection of each
  /// photo that is not a hidden import.
  static func listedItems(_ state: SpaceState) -> [String] {
    let entries = state.entries()
    let imports = DuplicateImports(entries)
    return entries.filter { imports.keptImport[$0.record.id] == nil }.map {
      "\($0.record.id.hex) \($0.selected)"
    }
  }

  func assertEachFileListedOnceAsItsEarliestImport(_ state: SpaceState, round: Int) {
    let photos = state.orderedPhotos()
    let imports = DuplicateImports(state.entries())
    var seen = Set<String>()
    for photo in photos where imports.keptImport[photo.record.id] == nil {
      XCTAssertTrue(seen.insert(photo.record.contentHash).inserted, "round \(round): listed twice")
      let all = photos.filter { $0.record.contentHash == photo.record.contentHash }
      XCTAssertEqual(
        all.min { ($0.order, $0.record.id) < ($1.order, $1.record.id) }?.record.id, photo.record.id,
        "round \(round): not the earliest import")
    }
    XCTAssertEqual(seen, Set(photos.map(\.record.contentHash)), "round \(round)")
  }

  /// Two copies' entries: each imports files of a small pool (so that both import some of
  /// the same), selects, files in an album (one album each, of one name) and deletes some.
  func twoCopiesImportingApart(using generator: inout SeededGenerator) -> [[JournalEntry]] {
    let hashes = (0..<5).map { _ in
      hexString((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
    return (0..<2).map { copy in
      let album = AlbumID.random()
      var entries: [JournalEntry] = [.albumNamed(album, name: "Trip", stamp: Int64(copy + 1))]
      var mine: [BlobID] = []
      for hash in hashes.shuffled(using: &generator).prefix(Int.random(in: 1...5, using: &generator)) {
        let record = PhotoRecord(
          id: .random(), name: "copy \(copy)", bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
          modifiedAt: Timestamp(seconds: 1), importedAt: Timestamp(seconds: 2), contentHash: hash)
        entries.append(.added(record, order: .random(in: 1...6, using: &generator)))
        mine.append(record.id)
      }
      for _ in 0..<6 {
        let id = mine.randomElement(using: &generator)!
        let stamp = Int64.random(in: 1...20, using: &generator)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: entries.append(.deleted(id))
        case 1, 2: entries.append(.selection(id, selected: Bool.random(using: &generator), stamp: stamp))
        default:
          entries.append(
            .albumMembership(album, photo: id, member: Bool.random(using: &generator), stamp: stamp))
        }
      }
      return entries
    }
  }
}
