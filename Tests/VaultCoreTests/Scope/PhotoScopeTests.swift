import Foundation
import XCTest

@testable import VaultCore

/// What a scope takes and in what order, the dates users type, and a browser made with a
/// scope numbering its photos within it.
final class PhotoScopeTests: XCTestCase {
  let utc = TimeZone(identifier: "UTC")!
  let berlin = TimeZone(identifier: "Europe/Berlin")!

  /// Nanoseconds since 1970 of a UTC time.
  func utcNanoseconds(_ text: String) throws -> Int64 {
    try DatePeriod(parsing: text, in: utc).start
  }

  func record(
    _ name: String, imported: Int64, taken: CaptureTime? = nil, bytes: Int64 = 10,
    importedNanoseconds: Int32 = 0
  ) -> PhotoRecord {
    var record = PhotoRecord(
      id: .random(), name: name, bytes: bytes, format: .jpeg, width: 4, height: 3, orientation: 1,
      modifiedAt: Timestamp(seconds: 1),
      importedAt: Timestamp(seconds: imported, nanoseconds: importedNanoseconds),
      contentHash: hexString(Sodium.randomBytes(32)))
    record.taken = taken
    return record
  }

  // MARK: Dates

  func testDatesNameADayAMinuteOrASecondInTheLocalZone() throws {
    let day = try DatePeriod(parsing: "2024-06-01", in: utc)
    XCTAssertEqual(day.start, 1_717_200_000 * 1_000_000_000)
    XCTAssertEqual(day.end, (1_717_200_000 + 86_400) * 1_000_000_000)
    let minute = try DatePeriod(parsing: "2024-06-01T14:03", in: utc)
    XCTAssertEqual(minute.start, (1_717_200_000 + 14 * 3600 + 3 * 60) * 1_000_000_000)
    XCTAssertEqual(minute.end - minute.start, 60_000_000_000)
    let second = try DatePeriod(parsing: "2024-06-01 14:03:22", in: utc)
    XCTAssertEqual(second.start, minute.start + 22_000_000_000)
    XCTAssertEqual(second.end - second.start, 1_000_000_000)
    // Local time: Berlin is two hours ahead in June; the day the clocks go forward is 23 hours.
    XCTAssertEqual(try DatePeriod(parsing: "2024-06-01", in: berlin).start, day.start - 7_200_000_000_000)
    let short = try DatePeriod(parsing: "2024-03-31", in: berlin)
    XCTAssertEqual(short.end - short.start, 23 * 3_600_000_000_000)
    XCTAssertEqual(try DatePeriod(parsing: "2024-02-29", in: utc).end, try utcNanoseconds("2024-03-01"))
  }

  func testDatesThatDoNotParseOrDoNotExistSayWhy() {
    let form = "write it as YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]"
    for (text, reason) in [
      ("2024", form), ("2024-6-01", form), ("01/06/2024", form), ("2024-06-01T14", form),
      ("2024-06-01T14:03:22:01", form), ("2024-06-01T14:3", form), ("", form), ("2024-06-01TT", form),
      ("２０２４-06-01", form), ("2024-13-01", "there is no month 13"),
      ("2023-02-29", "month 2 of 2023 has 28 days"),
      ("2024-04-31", "month 4 of 2024 has 30 days"), ("0000-01-01", "there is no year 0"),
      ("2024-06-01T24:00", "hours run from 00 to 23, minutes and seconds from 00 to 59"),
      ("2024-06-01T12:60", "hours run from 00 to 23, minutes and seconds from 00 to 59"),
    ] {
      XCTAssertThrowsError(try DatePeriod(parsing: text, in: utc), text) { error in
        XCTAssertEqual(error as? VaultError, .invalidDate(text, reason: reason))
      }
    }
  }

  // MARK: Sorting and filtering

  func testPhotosSortByDateTakenElseImportedWithTiesInImportOrder() throws {
    let noon = try utcNanoseconds("2024-06-01T12:00") / 1_000_000_000
    let entries = [
      // Imported on 2024-06-03; no date taken.
      record("c-imported.jpg", imported: noon + 2 * 86_400, bytes: 300),
      // Taken 2024-06-01 12:00 in UTC+2 (10:00 UTC).
      record(
        "b-offset.jpg", imported: noon + 3 * 86_400,
        taken: CaptureTime(localSeconds: noon, utcOffsetMinutes: 120),
        bytes: 100),
      // Taken 2024-06-01 11:00, no offset: read in the zone (UTC here).
      record(
        "A-local.jpg", imported: noon + 3 * 86_400, taken: CaptureTime(localSeconds: noon - 3600), bytes: 200),
      // Imported before the photo above it in the list (several threads prepare an import):
      // still after it, in import order.
      record("d-imported.jpg", imported: noon + 2 * 86_400 - 5, bytes: 100),
    ].map { IndexEntry(record: $0, selected: false) }
    let names = { (scope: PhotoScope) in
      scope.positions(of: entries, members: [], zone: self.utc).map { entries[$0].record.name }
    }
    XCTAssertEqual(names(PhotoScope()), ["b-offset.jpg", "A-local.jpg", "c-imported.jpg", "d-imported.jpg"])
    XCTAssertEqual(
      names(PhotoScope(sort: .imported)), ["c-imported.jpg", "b-offset.jpg", "A-local.jpg", "d-imported.jpg"])
    XCTAssertEqual(
      names(PhotoScope(sort: .name)), ["A-local.jpg", "b-offset.jpg", "c-imported.jpg", "d-imported.jpg"])
    XCTAssertEqual(
      names(PhotoScope(sort: .size)), ["b-offset.jpg", "d-imported.jpg", "A-local.jpg", "c-imported.jpg"])
    // Without an offset, the zone decides: in Berlin (UTC+2), 11:00 is 09:00 UTC, first.
    XCTAssertEqual(
      PhotoScope().positions(of: entries, members: [], zone: berlin).map { entries[$0].record.name }.prefix(
        2),
      ["A-local.jpg", "b-offset.jpg"])
    // --until a day includes all of it; --since from its start.
    let june1 = try DatePeriod(parsing: "2024-06-01", in: utc)
    let june3 = try DatePeriod(parsing: "2024-06-03", in: utc)
    XCTAssertEqual(names(PhotoScope(until: june1)), ["b-offset.jpg", "A-local.jpg"])
    XCTAssertEqual(names(PhotoScope(since: june3, sort: .name)), ["c-imported.jpg", "d-imported.jpg"])
    XCTAssertEqual(
      names(PhotoScope(since: try DatePeriod(parsing: "2024-06-01T10:00:01", in: utc))).first, "A-local.jpg")
    XCTAssertEqual(names(PhotoScope(since: june1, until: june1)), ["b-offset.jpg", "A-local.jpg"])
    // An album: only its members.
    let members: Set<BlobID> = [entries[0].record.id, entries[2].record.id]
    XCTAssertEqual(
      PhotoScope(album: "x").positions(of: entries, members: members, zone: utc), [2, 0])
  }

  func testAListAlreadyInOrderIsTheImportOrder() throws {
    // What every space holds before dates are read: the default order is import order,
    // whatever the records' own import times say.
    let entries = (0..<500).map {
      IndexEntry(record: record("p\($0)", imported: 1_700_000_000 - Int64($0 % 7)), selected: false)
    }
    XCTAssertEqual(PhotoScope().positions(of: entries, members: [], zone: utc), Array(0..<500))
  }

  // MARK: A browser with a scope

  func testABrowserNumbersThePhotosOfItsScopeAndFollowsChanges() throws {
    let (_, _, space) = try makeOpenedSpace(self, password: "scope")
    let records = ["d", "b", "a", "c"].enumerated().map {
      record($0.element + ".jpg", imported: 1_000 + Int64($0.offset))
    }
    try space.appendImported(records)
    try space.addToAlbum(named: "Two", photos: [records[3].id, records[1].id], creating: true)
    let browser = space.makeBrowser(scope: PhotoScope(album: "Two", sort: .name))
    XCTAssertEqual(browser.count, 2)
    XCTAssertEqual(browser.photo(at: 0)?.record.name, "b.jpg")
    XCTAssertEqual(browser.photo(at: 0)?.albums, ["Two"])
    // Numbers are places in the scoped list: photo 2 of the album is c.jpg.
    let chosen = try browser.photos(chosenBy: .photos([.numbers(first: 2, last: 2)]), action: "testing")
    XCTAssertEqual(chosen.map(\.photo.record.name), ["c.jpg"])
    XCTAssertThrowsError(
      try browser.photos(chosenBy: .photos([.numbers(first: 3, last: 3)]), action: "testing")
    ) {
      XCTAssertEqual($0 as? VaultError, .indexOutOfRange(index: 3, count: 2))
    }
    // Selecting through the scope selects that photo in the space.
    try browser.setSelected([1], true)
    XCTAssertEqual(space.entries.filter(\.selected).map(\.record.name), ["c.jpg"])
    XCTAssertEqual(browser.selectedPhotos().map(\.index), [1])
    // The count follows the space: an addition through the browser, then a deletion.
    try browser.addToAlbum("Two", [space.catalog.item(at: 2)])
    XCTAssertEqual(
      (0..<browser.count).map { browser.photo(at: $0)!.record.name }, ["a.jpg", "b.jpg", "c.jpg"])
    try browser.delete([browser.photo(at: 1)!])
    XCTAssertEqual((0..<browser.count).map { browser.photo(at: $0)!.record.name }, ["a.jpg", "c.jpg"])
    // Moved to Recently Deleted: the space still holds it.
    XCTAssertEqual(space.entries.count, 4)
    XCTAssertEqual(space.catalog.trashItems.map(\.photo.record.name), ["b.jpg"])
    // An album that goes leaves the list empty.
    try space.deleteAlbum(named: "Two")
    browser.reloadData()
    XCTAssertEqual(browser.count, 0)
  }

  func testAReaderAddsToAnAlbumThroughAWriterOfItsOwn() throws {
    // The writer, and its lock, go at the end of the closure.
    let vault = try { () throws -> Vault in
      let (_, vault, writer) = try makeOpenedSpace(self, password: "reader")
      try writer.appendImported((0..<3).map { record("p\($0).jpg", imported: 1_000 + Int64($0)) })
      return vault
    }()
    let reader = try vault.unlock(password: password("reader"), access: .read)
    reader.releaseLock()
    let browser = reader.makeBrowser()
    let addition = try browser.addToAlbum("Seen", [browser.photo(at: 0)!, browser.photo(at: 2)!])
    XCTAssertEqual(addition, AlbumAddition(added: 2, created: true, name: "Seen"))
    XCTAssertEqual(browser.photo(at: 2)!.albums, ["Seen"])
    XCTAssertEqual(reader.album(named: "Seen")?.count, 2)
  }

  func testExportByAlbumPutsAPhotoInEachOfItsAlbumsAndTheRestInAFolderOfTheirOwn() {
    let photos = [["Trip", "Family"], [], ["No album"], ["trip"]].enumerated().map {
      PhotoModel(isSelected: false, record: record("p\($0.offset).jpg", imported: 1), albums: $0.element)
    }
    let groups = AlbumFolders.groups(photos)
    // Told apart ignoring case: a FAT card or an SMB share would merge `Trip` and `trip`.
    XCTAssertEqual(groups.map(\.folder), ["Family", "No album", "Trip", "trip (1)", "No album (1)"])
    XCTAssertEqual(
      groups.map { $0.photos.map(\.record.name) },
      [["p0.jpg"], ["p2.jpg"], ["p0.jpg"], ["p3.jpg"], ["p1.jpg"]])
    let only = AlbumFolders.groups(photos, only: "Trip")
    XCTAssertEqual(only.map(\.folder), ["Trip"])
  }
}
