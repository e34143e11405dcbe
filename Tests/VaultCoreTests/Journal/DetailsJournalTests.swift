import Foundation
import XCTest

@testable import VaultCore

/// The details read from photos' files (date taken, camera), as the journal stores them:
/// `details` entries, their merge rule, import and compaction.
final class DetailsJournalTests: XCTestCase {
  func record(named name: String) -> PhotoRecord {
    PhotoRecord(
      id: .random(), name: name, bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
      modifiedAt: Timestamp(seconds: 1), importedAt: .now(), contentHash: String(repeating: "ab", count: 32))
  }

  let dated = PhotoDetails(
    taken: CaptureTime(localSeconds: 1_717_250_602, nanoseconds: 5, utcOffsetMinutes: -90),
    cameraMake: "Canon",
    cameraModel: "Canon EOS R5")

  func decode(_ bytes: [UInt8]) throws -> [JournalEntry] {
    var decoded: [JournalEntry] = []
    try (bytes + [0]).withUnsafeBytes { _ = try JournalEntry.decodeAll($0) { decoded.append($0) } }
    return decoded
  }

  func testDetailsRoundTripAndAnythingOutOfRangeIsDamage() throws {
    let id = BlobID.random()
    let long = String(repeating: "é", count: 200)
    let entries: [JournalEntry] = [
      .details(id, dated, stamp: 7),
      .details(id, PhotoDetails(), stamp: .min),
      .details(
        id, PhotoDetails(taken: CaptureTime(localSeconds: JournalEntry.takenRange.lowerBound)), stamp: 1),
      .details(id, PhotoDetails(cameraModel: "\u{1B}[2J"), stamp: JournalEntry.latestStamp()),
    ]
    var writer = ByteWriter()
    for entry in entries { entry.encode(into: &writer) }
    XCTAssertEqual(writer.output.count, entries.map(\.encodedLength).reduce(0, +))
    XCTAssertEqual(try decode(writer.output), entries)
    // A make longer than a length byte holds is cut on a character boundary.
    var cut = ByteWriter()
    JournalEntry.details(id, PhotoDetails(cameraMake: long), stamp: 1).encode(into: &cut)
    guard case .details(_, let read, _)? = try decode(cut.output).first else { return XCTFail("no entry") }
    XCTAssertEqual(read.cameraMake, String(repeating: "é", count: 127))

    var good = ByteWriter()
    JournalEntry.details(id, dated, stamp: 7).encode(into: &good)
    let flags = 1 + 16 + 8
    let seconds = flags + 1
    let nanoseconds = seconds + 8
    let offset = nanoseconds + 4
    let makeLength = offset + 2
    let malformed: [(String, (inout [UInt8]) -> Void)] = [
      ("an unknown flag", { $0[flags] |= 0x10 }),
      ("an offset without a date", { $0[flags] = 0x02 | 0x04 | 0x08 }),
      ("a date the flags leave out", { $0[flags] &= ~0x03 }),
      ("a make the flags leave out", { $0[flags] &= ~0x04 }),
      (
        "nanoseconds of a whole second",
        { $0.replaceSubrange(nanoseconds..<nanoseconds + 4, with: [0x3B, 0x9A, 0xCA, 0]) }
      ),
      (
        "a date after year 9999",
        { $0.replaceSubrange(seconds..<seconds + 8, with: [0, 0, 0, 0x3B, 0, 0, 0, 0]) }
      ),
      ("an offset of a day", { $0.replaceSubrange(offset..<offset + 2, with: [0x05, 0xA0]) }),
      ("a make that is not UTF-8", { $0[makeLength + 1] = 0xFF }),
      ("a cut entry", { $0.removeLast(3) }),
    ]
    for (what, change) in malformed {
      var bytes = good.output
      change(&bytes)
      XCTAssertThrowsError(try decode(bytes), what) { error in
        XCTAssertEqual((error as? JournalDecodingError)?.reason, "is malformed photo details", what)
      }
    }
  }

  func testDetailsMergeInAnyOrderAndTheLatestWins() throws {
    let (a, b, c) = (record(named: "a"), record(named: "b"), record(named: "c"))
    let older = PhotoDetails(cameraModel: "older")
    let entries: [JournalEntry] = [
      .added(a, order: 1), .added(b, order: 2), .details(a.id, older, stamp: 5),
      .details(a.id, dated, stamp: 9),
      .details(b.id, PhotoDetails(), stamp: 3), .details(c.id, dated, stamp: 4), .deleted(c.id),
      // Before its photo, as a merged copy may be read.
      .details(BlobID(high: 1, low: 2), older, stamp: 1),
    ]
    var expected = SpaceState()
    for entry in entries { expected.apply(entry) }
    XCTAssertEqual(expected.entries().map { PhotoDetails(of: $0.record) }, [dated, PhotoDetails()])
    XCTAssertTrue(expected.hasDetails(b.id))
    XCTAssertFalse(expected.hasDetails(c.id), "a deleted photo's details go with it")
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<50 {
      var state = SpaceState()
      for entry in (entries + entries.prefix(3)).shuffled(using: &generator) { state.apply(entry) }
      XCTAssertEqual(state.entries(), expected.entries())
      XCTAssertEqual(state.compacted(), expected.compacted())
    }
    // A photo added after its details takes them; one added again keeps them.
    var late = expected
    late.apply(.added(record(named: "late"), order: 3))
    let early = BlobID(high: 1, low: 2)
    var photo = record(named: "early")
    photo.id = early
    late.apply(.added(photo, order: 4))
    late.apply(.added(photo, order: 0))
    XCTAssertEqual(late.photo(early).map { PhotoDetails(of: $0.record) }, older)
    // A record given with details of its own gets only what the journal says.
    var claims = record(named: "claims")
    claims = dated.applied(to: claims)
    late.apply(.added(claims, order: 5))
    XCTAssertEqual(late.photo(claims.id).map { PhotoDetails(of: $0.record) }, PhotoDetails())
    XCTAssertFalse(late.hasDetails(claims.id))
    // At equal stamps the larger encoding wins, whichever comes first.
    for pair in [[older, dated], [dated, older]] {
      var state = SpaceState()
      state.apply(.added(a, order: 1))
      for details in pair { state.apply(.details(a.id, details, stamp: 9)) }
      XCTAssertEqual(state.photo(a.id).map { PhotoDetails(of: $0.record) }, dated)
    }
  }

  func testASnapshotWithDetailsDecodesTheSameInSlices() throws {
    var writer = ByteWriter()
    var entries: [JournalEntry] = []
    for number in 0..<2000 {
      let entry: JournalEntry
      switch number % 3 {
      case 0: entry = .added(record(named: "p\(number)"), order: Int64(number))
      case 1:
        // Up to the 255 bytes a length byte holds.
        let text = String(repeating: "m", count: number % 255)
        entry = .details(
          .random(), PhotoDetails(cameraMake: text.isEmpty ? nil : text, cameraModel: text + "x"), stamp: 3)
      default: entry = .details(.random(), PhotoDetails(), stamp: Int64(number))
      }
      entry.encode(into: &writer)
      entries.append(entry)
    }
    writer.byte(0)
    for slices in [1, 3, 7] {
      var decoded: [JournalEntry] = []
      _ = try writer.output.withUnsafeBytes {
        try JournalEntry.decodeAllInParallel($0, slices: slices) { decoded.append($0) }
      }
      XCTAssertEqual(decoded.count, entries.count, "\(slices) slices")
      XCTAssertNil(decoded.indices.first { decoded[$0] != entries[$0] }, "\(slices) slices")
    }
  }

  func testAnImportStoresDetailsInTheRecordTheJournalAndTheOriginal() throws {
    let (_, vault, _) = try makeOpenedSpace(self, password: "first", access: .read)
    // One space open at a time: a reader waits for the writer's lock, in one process too.
    var space: Space?
    func reopen(_ access: Space.Access) throws -> Space {
      space = nil
      space = try vault.unlock(password: password("first"), access: access)
      return space!
    }
    let names = ["taken-offset.jpg", "photo.jpg", "taken.heic", "taken-time.png"]
    try PhotoImporter().importFiles(names.map { fixturesPath + "/" + $0 }, into: try reopen(.write)) { _, _ in
    }
    let expected = names.map { name in PhotoDetailsTests.expected.first { $0.name == name }!.details }
    func check(_ opened: Space, _ when: String) throws {
      XCTAssertEqual(opened.entries.map { PhotoDetails(of: $0.record) }, expected, when)
      for entry in opened.entries {
        XCTAssertTrue(opened.hasDetails(entry.record.id), "\(entry.record.name) \(when)")
        let blob = try opened.openOriginal(entry.record)
        XCTAssertEqual(PhotoDetails(of: blob.record), PhotoDetails(of: entry.record), entry.record.name)
      }
    }
    try check(space!, "as imported")
    try check(try reopen(.read), "read back")
    try reopen(.write).compactJournal()
    XCTAssertEqual(try listVaultFolder(space!.journalDirectory).count, 1)
    try check(try reopen(.read), "after compaction")
  }
}
