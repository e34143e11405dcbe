import Foundation
import XCTest

@testable import VaultCore

/// Albums: their journal entries merge in any order, survive compaction and repair, and the
/// space's album commands change exactly what they say.
final class AlbumTests: XCTestCase {
  var folder = ""
  var vault: Vault!
  var space: Space!

  override func setUpWithError() throws {
    (folder, vault, space) = try makeOpenedSpace(self, password: "albums")
  }

  func reopen(_ access: Space.Access = .read) throws -> Space {
    space = nil
    return try vault.unlock(password: password("albums"), access: access)
  }

  func record(named name: String) -> PhotoRecord {
    PhotoRecord(
      id: .random(), name: name, bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
      modifiedAt: Timestamp(seconds: 1), importedAt: .now(), contentHash: hexString(Sodium.randomBytes(32)))
  }

  func albumNames(_ state: SpaceState) -> [String: Set<String>] {
    let photos = Dictionary(uniqueKeysWithValues: state.entries().map { ($0.record.id, $0.record.name) })
    return Dictionary(
      uniqueKeysWithValues: state.albums().map { ($0.name, Set($0.photoIDs.map { photos[$0]! })) })
  }

  // MARK: The entries

  func testAlbumEntriesMergeInAnyOrder() throws {
    let (a, b, c) = (record(named: "a"), record(named: "b"), record(named: "c"))
    let (trip, family, gone) = (AlbumID.random(), AlbumID.random(), AlbumID.random())
    let entries: [JournalEntry] = [
      .added(a, order: 1), .added(b, order: 2), .added(c, order: 3),
      .albumNamed(trip, name: "Trip", stamp: 10), .albumNamed(trip, name: "Trip 2024", stamp: 30),
      .albumNamed(trip, name: "Old name", stamp: 20),
      .albumMembership(trip, photo: a.id, member: true, stamp: 11),
      .albumMembership(trip, photo: a.id, member: false, stamp: 12),
      .albumMembership(trip, photo: a.id, member: true, stamp: 13),
      .albumMembership(trip, photo: b.id, member: true, stamp: 11),
      .albumMembership(trip, photo: b.id, member: false, stamp: 14),
      // A photo deleted leaves its albums, and a later membership does not bring it back.
      .albumMembership(trip, photo: c.id, member: true, stamp: 11), .deleted(c.id),
      .albumMembership(trip, photo: c.id, member: true, stamp: 99),
      // A membership read before its album's name (a merged copy) counts once it is named.
      .albumMembership(family, photo: b.id, member: true, stamp: 40),
      .albumNamed(family, name: "Family", stamp: 41),
      // A deleted album stays deleted, whatever comes after.
      .albumNamed(gone, name: "Gone", stamp: 50),
      .albumMembership(gone, photo: a.id, member: true, stamp: 51),
      .albumDeleted(gone), .albumNamed(gone, name: "Back", stamp: 90),
    ]
    var expected = SpaceState()
    for entry in entries { expected.apply(entry) }
    XCTAssertEqual(albumNames(expected), ["Trip 2024": ["a"], "Family": ["b"]])
    XCTAssertEqual(expected.lastStamp, 99)
    var generator = SeededGenerator(seed: 12)
    for _ in 0..<50 {
      var state = SpaceState()
      for entry in (entries + entries.prefix(9)).shuffled(using: &generator) { state.apply(entry) }
      XCTAssertEqual(albumNames(state), albumNames(expected))
      XCTAssertEqual(state.compacted(), expected.compacted())
    }
    // The compacted entries rebuild the same albums.
    var rebuilt = SpaceState()
    for entry in expected.compacted() { rebuilt.apply(entry) }
    XCTAssertEqual(albumNames(rebuilt), albumNames(expected))
    XCTAssertEqual(rebuilt.compacted(), expected.compacted())
  }

  func testEqualStampsAreSettledTheSameWhicheverComesFirst() {
    let photo = record(named: "p")
    let album = AlbumID.random()
    for names in [["Alpha", "Beta"], ["Beta", "Alpha"]] {
      var state = SpaceState()
      state.apply(.added(photo, order: 1))
      for name in names { state.apply(.albumNamed(album, name: name, stamp: 5)) }
      for member in names == ["Alpha", "Beta"] ? [true, false] : [false, true] {
        state.apply(.albumMembership(album, photo: photo.id, member: member, stamp: 6))
      }
      XCTAssertEqual(state.albums().map(\.name), ["Beta"])
      XCTAssertEqual(state.albums().first?.photoIDs, [photo.id])
    }
  }

  func testASnapshotWithAlbumsDecodedInSlicesGivesTheSameEntries() throws {
    var writer = ByteWriter()
    var entries: [JournalEntry] = []
    for number in 0..<3000 {
      let entry: JournalEntry
      switch number % 4 {
      case 0: entry = .added(record(named: String(repeating: "n", count: number % 200)), order: Int64(number))
      case 1: entry = .albumNamed(.random(), name: String(repeating: "é", count: 1 + number % 90), stamp: 1)
      case 2: entry = .albumMembership(.random(), photo: .random(), member: number % 3 == 0, stamp: 2)
      default: entry = .albumDeleted(.random())
      }
      entry.encode(into: &writer)
      entries.append(entry)
    }
    writer.byte(0)
    for slices in [1, 3, 8] {
      var decoded: [JournalEntry] = []
      _ = try writer.output.withUnsafeBytes {
        try JournalEntry.decodeAllInParallel($0, slices: slices) { decoded.append($0) }
      }
      XCTAssertEqual(decoded, entries, "\(slices) slices")
    }
  }

  func testMalformedAlbumEntriesAreDamage() {
    let album = [UInt8](repeating: 0xa0, count: 16)
    let photo = [UInt8](repeating: 0x11, count: 16)
    let stamp = [UInt8](repeating: 0, count: 8)
    for (bytes, reason) in [
      ([4] + album + stamp + [0, 0, 0], "is a malformed album name"),  // an empty name
      ([4] + album + stamp + [0, 2, 0xff, 0xfe, 0], "is a malformed album name"),  // not UTF-8
      ([4] + album + stamp + [0, 9, 0x41, 0], "is a malformed album name"),  // cut short
      ([5] + album.prefix(8), "is cut short"),
      ([6] + album + photo + [2] + stamp + [0], "is a malformed album membership"),
    ] {
      XCTAssertThrowsError(try bytes.withUnsafeBytes { try JournalEntry.decodeAll($0) { _ in } }) { error in
        XCTAssertEqual((error as? JournalDecodingError)?.reason, reason, "\(bytes)")
      }
    }
  }

  // MARK: The space

  func testMakeRenameFillEmptyAndDeleteAnAlbum() throws {
    let records = (0..<4).map { record(named: "p\($0)") }
    try space.appendImported(records)
    try space.createAlbum(named: "Trip")
    XCTAssertThrowsError(try space.createAlbum(named: "Trip")) {
      XCTAssertEqual($0 as? VaultError, .albumExists("Trip"))
    }
    var addition = try space.addToAlbum(named: "Trip", photos: [records[0].id, records[2].id, records[0].id])
    XCTAssertEqual(addition, AlbumAddition(added: 2, created: false, name: "Trip"))
    addition = try space.addToAlbum(named: "Trip", photos: [records[2].id, records[3].id])
    XCTAssertEqual(addition, AlbumAddition(added: 1, created: false, name: "Trip"))
    XCTAssertThrowsError(try space.addToAlbum(named: "Nope", photos: [records[1].id])) {
      XCTAssertEqual($0 as? VaultError, .noSuchAlbum("Nope"))
    }
    XCTAssertEqual(
      try space.addToAlbum(named: "Family", photos: [records[1].id], creating: true),
      AlbumAddition(added: 1, created: true, name: "Family"))
    XCTAssertEqual(try space.removeFromAlbum(named: "Trip", photos: [records[3].id, records[1].id]), 1)
    XCTAssertThrowsError(try space.renameAlbum("Trip", to: "Family")) {
      XCTAssertEqual($0 as? VaultError, .albumExists("Family"))
    }
    try space.renameAlbum("Trip", to: "Trip 2024")
    XCTAssertEqual(space.catalog.item(at: 0).albums, ["Trip 2024"])

    var reopened = try reopen()
    XCTAssertEqual(reopened.albums.map(\.name), ["Family", "Trip 2024"])
    XCTAssertEqual(reopened.album(named: "Trip 2024")?.photoIDs, [records[0].id, records[2].id])
    XCTAssertEqual(reopened.albumNames(of: records[1].id), ["Family"])
    XCTAssertEqual(reopened.entries.count, 4)
    reopened.releaseLock()

    space = try reopen(.write)
    let deleted = try space.deleteAlbum(named: "Trip 2024")
    XCTAssertEqual(deleted.count, 2)
    XCTAssertThrowsError(try space.deleteAlbum(named: "Trip 2024")) {
      XCTAssertEqual($0 as? VaultError, .noSuchAlbum("Trip 2024"))
    }
    // Deleting a photo takes it out of its albums; the photos of a deleted album stay.
    try space.deletePhotos(ids: [records[1].id])
    reopened = try reopen()
    XCTAssertEqual(reopened.albums.map(\.name), ["Family"])
    XCTAssertEqual(reopened.album(named: "Family")?.count, 0)
    XCTAssertEqual(reopened.entries.count, 3)
  }

  func testAnAlbumChangeCostsWhatItChangesAndLeavesThePhotoListAlone() throws {
    try space.appendImported((0..<200).map { record(named: "p\($0)") })
    let before = space.entries
    let catalog = space.catalog
    try space.addToAlbum(named: "One", photos: [space.entries[7].record.id], creating: true)
    XCTAssertEqual(space.entries, before)
    XCTAssertFalse(space.catalog.hasSameItems(as: catalog), "derived lists must know the albums changed")
    let segment = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory)
      .first { $0.hasPrefix("j-") }!
    let size = fileSize(space.journalDirectory + "/" + segment)
    try space.addToAlbum(named: "One", photos: [space.entries[8].record.id])
    // One membership entry (42 bytes), its end mark and padding, and a record's framing.
    XCTAssertLessThan(fileSize(space.journalDirectory + "/" + segment) - size, 110)
  }

  func testCompactionAndRepairKeepTheAlbums() throws {
    let records = ["a", "b", "c"].map { record(named: $0) }
    try space.appendImported(records)
    try space.addToAlbum(named: "Kept", photos: [records[0].id, records[1].id], creating: true)
    try space.removeFromAlbum(named: "Kept", photos: [records[1].id])
    try space.addToAlbum(named: "Gone", photos: [records[2].id], creating: true)
    try space.deleteAlbum(named: "Gone")
    try space.compactJournal()
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory).count, 1)
    space = try reopen(.write)
    XCTAssertEqual(space.albums.map(\.name), ["Kept"])
    XCTAssertEqual(space.album(named: "Kept")?.photoIDs, [records[0].id])
    // A later segment is damaged: repair keeps what reads (the snapshot's albums), and the
    // album deleted stays deleted.
    try space.addToAlbum(named: "Lost", photos: [records[1].id], creating: true)
    let segment = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory)
      .first { $0.hasPrefix("j-") }!
    let path = space.journalDirectory + "/" + segment
    space = nil
    var bytes = try fileBytes(path)
    bytes[bytes.count - 5] ^= 1
    try writeBytes(bytes, to: path)
    var damaged: Space? = try vault.unlock(password: password("albums"), access: .write)
    XCTAssertNotNil(damaged!.indexDamage)
    XCTAssertTrue(try SpaceVerifier(space: damaged!).repair().indexRebuilt)
    let repaired = damaged!.albums
    XCTAssertEqual(repaired.map(\.name), ["Kept"])
    XCTAssertEqual(repaired.first?.photoIDs, [records[0].id])
    damaged = nil
    XCTAssertEqual(try reopen().albums, repaired)
  }

  /// Two synced copies each made an album "Trip" (two ids): one album, whose changes reach
  /// both ids.
  func testAlbumsOfOneNameMadeApartAreOneAlbum() throws {
    let records = (0..<3).map { record(named: "p\($0)") }
    try space.appendImported(records)
    let (first, second) = (AlbumID.random(), AlbumID.random())
    try space.record([
      .albumNamed(first, name: "Trip", stamp: 1), .albumNamed(second, name: "Trip", stamp: 2),
      .albumMembership(first, photo: records[0].id, member: true, stamp: 3),
      .albumMembership(second, photo: records[0].id, member: true, stamp: 3),
      .albumMembership(second, photo: records[1].id, member: true, stamp: 3),
    ])
    XCTAssertEqual(space.albums.map(\.name), ["Trip"])
    XCTAssertEqual(space.album(named: "Trip")?.photoIDs, [records[0].id, records[1].id])
    XCTAssertEqual(space.catalog.item(at: 0).albums, ["Trip"])
    // Taken out of both; renamed both.
    XCTAssertEqual(try space.removeFromAlbum(named: "Trip", photos: [records[0].id]), 1)
    try space.renameAlbum("Trip", to: "Voyage")
    try space.addToAlbum(named: "Voyage", photos: [records[2].id])
    let reopened = try reopen()
    XCTAssertEqual(reopened.albums.map(\.name), ["Voyage"])
    XCTAssertEqual(reopened.album(named: "Voyage")?.photoIDs, [records[1].id, records[2].id])
    XCTAssertEqual(reopened.album(named: "Voyage")?.ids, [first, second].sorted())
  }

  func testAFormat1SpaceHasNoAlbumsUntilAWriterUpgradesIt() throws {
    let copy = folder + "/v1"
    try FileManager.default.copyItem(atPath: projectPath + "/Tests/Compatibility/vault-v1", toPath: copy)
    let old = try Vault.open(at: copy)
    let reader = try old.unlock(password: password("compatibility v1"), access: .read)
    XCTAssertEqual(reader.formatVersion, 1)
    XCTAssertEqual(reader.albums, [])
    XCTAssertEqual(reader.catalog.item(at: 0).albums, [])
    let addition = try reader.change { writer in
      try writer.addToAlbum(named: "Old", photos: [writer.entries[0].record.id], creating: true)
    }
    XCTAssertEqual(addition, AlbumAddition(added: 1, created: true, name: "Old"))
    XCTAssertEqual(reader.formatVersion, 2)
    XCTAssertEqual(reader.albumNames(of: reader.entries[0].record.id), ["Old"])
  }

  // MARK: Names

  func testAlbumNamesAreCheckedAndNormalized() throws {
    XCTAssertEqual(try AlbumName.normalized("E\u{301}te\u{301}"), "Été")
    XCTAssertEqual(try AlbumName.normalized("Trip 2024 🏖"), "Trip 2024 🏖")
    XCTAssertEqual(try AlbumName.normalized(String(repeating: "é", count: 100)).count, 100)
    for (name, reason) in [
      ("", "an album name cannot be empty"),
      ("a\u{1B}[2Jb", "it holds a control character"),
      ("tab\there", "it holds a control character"),
      ("evil\u{202E}gpj", "it holds a control character"),
      (String(repeating: "x", count: 101), "it is 101 characters long; an album name has at most 100"),
      (" Trip", "it begins or ends with a space"),
      ("Trip ", "it begins or ends with a space"),
      ("2024/06", "it holds a '/' (albums become folders on export)"),
      ("..", "'.' and '..' name folders, not albums"),
    ] {
      XCTAssertThrowsError(try AlbumName.normalized(name)) { error in
        XCTAssertEqual(
          error as? VaultError, .invalidAlbumName(TerminalSafeText.escaped(name), reason: reason))
      }
    }
  }

  // MARK: Through the browser

  /// `album new`, `rename` and `delete` go through the data source like every other change:
  /// a reader's browser (the viewer's) writes through a short-lived writer, and sees its
  /// change at once, since the browser reloads after each.
  func testABrowserMakesRenamesAndDeletesAlbumsThroughItsDataSource() throws {
    space = try reopen(.read)
    let browser = space.makeBrowser()
    try browser.createAlbum(named: "Trip")
    XCTAssertEqual(browser.albums.map(\.name), ["Trip"])
    XCTAssertThrowsError(try browser.createAlbum(named: "trip")) {
      XCTAssertEqual($0 as? VaultError, .albumExists("Trip"))
    }
    XCTAssertEqual(try browser.renameAlbum("trip", to: "Greece"), "Trip")
    XCTAssertEqual(browser.albums.map(\.name), ["Greece"])
    XCTAssertEqual(try browser.deleteAlbum(named: "Greece").name, "Greece")
    XCTAssertEqual(browser.albums.map(\.name), [])
    XCTAssertThrowsError(try browser.deleteAlbum(named: "Greece")) {
      XCTAssertEqual($0 as? VaultError, .noSuchAlbum("Greece"))
    }
    // What the browser showed is what the space holds.
    XCTAssertEqual(try reopen().albums.map(\.name), [])
  }
}

/// Album names come from the journal, which anyone holding the password (a synced copy's
/// other writer) may have written without vault's checks: `export --by-album` must still
/// make one safe folder of each, inside the target.
final class AlbumFolderTests: XCTestCase {
  func testHostileAlbumNamesBecomeOneSafeFolderEach() {
    let names = [
      "../../../outside", "..", ".", "a/b", "esc\u{1B}[2J", "nul\u{0}x", " ", "Trip", "trip",
      String(repeating: "📷", count: 80), "No album",
    ]
    for name in names {
      let folder = AlbumFolders.safeFolderName(name)
      XCTAssertFalse(folder.contains("/"), name)
      XCTAssertFalse(folder.isEmpty || folder == "." || folder == "..", name)
      XCTAssertFalse(folder.unicodeScalars.contains { $0.value < 0x20 }, name)
      XCTAssertLessThanOrEqual(folder.utf8.count, 255, name)
    }
    XCTAssertEqual(AlbumFolders.safeFolderName("../../../outside"), ".._.._.._outside")
    let record = PhotoRecord(
      id: BlobID(hex: String(repeating: "ab", count: 16))!, name: "a.jpg", bytes: 1, format: .jpeg, width: 1,
      height: 1, orientation: 1, modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0),
      contentHash: String(repeating: "0", count: 64))
    var photo = PhotoModel(isSelected: false, record: record)
    photo.albums = ["Trip", "trip", "No album", ".."]
    var alone = photo
    alone.albums = []
    let folders = AlbumFolders.groups([photo, alone]).map(\.folder)
    XCTAssertEqual(
      folders.map { $0.lowercased() }.count, Set(folders.map { $0.lowercased() }).count, "\(folders)")
    XCTAssertEqual(folders.count, 5)
  }

  /// Two albums whose names differ only in normalization (`Café` in NFC and in NFD, as a
  /// merge of two copies can hold) were one folder of `export --by-album` and the mount:
  /// Swift's String equality merged them. Each has its own, the second in byte order
  /// (NFC's `C3 A9` comes after NFD's `65 CC 81`) numbered, whatever the photos' order.
  func testAlbumsNamedAlikeButForNormalizationKeepAFolderEach() {
    let (composed, decomposed) = ("Caf\u{E9}", "Cafe\u{301}")
    XCTAssertEqual(composed, decomposed, "Swift takes them for one name")
    func photo(_ byte: String, albums: [String]) -> PhotoModel {
      let record = PhotoRecord(
        id: BlobID(hex: String(repeating: byte, count: 16))!, name: "\(byte).jpg", bytes: 1, format: .jpeg,
        width: 1, height: 1, orientation: 1, modifiedAt: Timestamp(seconds: 0),
        importedAt: Timestamp(seconds: 0), contentHash: String(repeating: "0", count: 64))
      var photo = PhotoModel(isSelected: false, record: record)
      photo.albums = albums
      return photo
    }
    let photos = [
      photo("aa", albums: [composed]), photo("bb", albums: [decomposed]),
      photo("cc", albums: [composed, decomposed]),
    ]
    for order in [photos, photos.reversed()] {
      let groups = AlbumFolders.groups(order)
      XCTAssertEqual(
        groups.map { Array($0.folder.utf8) }, [Array(decomposed.utf8), Array((composed + " (1)").utf8)])
      XCTAssertEqual(
        groups.map { Set($0.photos.map(\.record.name)) }, [["bb.jpg", "cc.jpg"], ["aa.jpg", "cc.jpg"]])
    }
  }
}
