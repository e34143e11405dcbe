import Foundation
import XCTest

@testable import VaultCore

/// The journal of format 2: records bound to their segment, place and space; torn tails;
/// the merge rules; compaction.
final class JournalTests: XCTestCase {
  var folder = ""
  var vault: Vault!
  var space: Space!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    try vault.createSpace(password: password("other"))
    space = try vault.unlock(password: password("first"), access: .write)
  }

  func reopen(_ access: Space.Access = .read) throws -> Space {
    space = nil
    return try vault.unlock(password: password("first"), access: access)
  }

  /// A record whose `added` entry lists a made-up photo (only the journal is read here),
  /// with a content hash of its own: records of one hash are imports of one photo, deleted
  /// together (see `DuplicateImports`).
  func record(named name: String) -> PhotoRecord {
    PhotoRecord(
      id: .random(), name: name, bytes: 10, format: .jpeg, width: 4, height: 3, orientation: 1,
      modifiedAt: Timestamp(seconds: 1), importedAt: .now(),
      contentHash: hexString((0..<32).map { _ in UInt8.random(in: 0...255) }))
  }

  /// One segment of three records (one photo each), written by this writer; its path and
  /// the byte ranges of its records.
  func segmentOfThreeRecords() throws -> (path: String, records: [Range<Int>]) {
    for name in ["a", "b", "c"] { try space.appendImported([record(named: name)]) }
    let segments = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory)
      .filter { $0.hasPrefix("j-") }
    XCTAssertEqual(segments.count, 1)
    let path = space.journalDirectory + "/" + segments[0]
    let bytes = try fileBytes(path)
    var ranges: [Range<Int>] = []
    var offset = JournalSegment.headerLength
    while offset < bytes.count {
      let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      ranges.append(offset..<offset + 4 + length)
      offset += 4 + length
    }
    XCTAssertEqual(ranges.count, 3)
    return (path, ranges)
  }

  func damageReason(after change: (inout [UInt8]) throws -> Void, at path: String) throws -> String? {
    var bytes = try fileBytes(path)
    let original = bytes
    try change(&bytes)
    try writeBytes(bytes, to: path)
    defer { try? writeBytes(original, to: path) }
    let opened = try vault.unlock(password: password("first"), access: .read)
    guard case .damagedIndex(let named, let reason)? = opened.indexDamage else { return nil }
    XCTAssertEqual(named, path)
    return reason
  }

  func testRecordsRemovedReorderedDuplicatedOrMovedAreNamed() throws {
    let (path, records) = try segmentOfThreeRecords()
    space = nil
    let record = { (index: Int, bytes: [UInt8]) in Array(bytes[records[index]]) }
    let cases: [(String, (inout [UInt8]) -> Void, String)] = [
      ("removed from the middle", { $0.removeSubrange(records[1]) }, "record 2 does not authenticate"),
      (
        "reordered",
        { b in
          let (r1, r2) = (record(1, b), record(2, b))
          b.replaceSubrange(records[1].lowerBound..<records[2].upperBound, with: r2 + r1)
        }, "record 2 does not authenticate"
      ),
      (
        "duplicated", { b in b.insert(contentsOf: record(0, b), at: records[1].lowerBound) },
        "record 2 does not authenticate"
      ),
      ("a flipped byte", { $0[records[2].lowerBound + 40] ^= 1 }, "record 3 does not authenticate"),
      ("an impossible length", { $0[records[0].lowerBound] = 0xFF }, "record 1 has an impossible length"),
    ]
    for (what, change, expected) in cases {
      let reason = try damageReason(after: change, at: path)
      XCTAssertTrue(reason?.contains(expected) == true, "\(what): \(reason ?? "not detected")")
    }
  }

  func testASegmentRenamedOrTakenFromAnotherSpaceIsNamed() throws {
    let (path, _) = try segmentOfThreeRecords()
    space = nil
    // Renamed: its header names another segment.
    let renamed = parentFolder(path) + "/j-" + BlobID.random().hex
    try FileManager.default.moveItem(atPath: path, toPath: renamed)
    var opened = try vault.unlock(password: password("first"), access: .read)
    guard case .damagedIndex(renamed, let reason)? = opened.indexDamage else {
      return XCTFail("not detected")
    }
    XCTAssertTrue(reason.contains("another segment"), reason)
    try FileManager.default.removeItem(atPath: renamed)

    // Another space's segment, under its own name: that space's key does not open it here.
    let other = try vault.unlock(password: password("other"), access: .write)
    try other.appendImported([record(named: "stranger")])
    let strangers = try FileManager.default.contentsOfDirectory(atPath: other.journalDirectory)
      .filter { $0.hasPrefix("j-") }
    let moved = parentFolder(path) + "/" + strangers[0]
    try FileManager.default.copyItem(atPath: other.journalDirectory + "/" + strangers[0], toPath: moved)
    opened = try vault.unlock(password: password("first"), access: .read)
    guard case .damagedIndex(moved, let movedReason)? = opened.indexDamage else {
      return XCTFail("not detected")
    }
    XCTAssertTrue(movedReason.contains("record 1 does not authenticate"), movedReason)
  }

  func testATornTailIsNotDamageAndOnlyAKilledWritersMarkSettlesIt() throws {
    let (path, records) = try segmentOfThreeRecords()
    space = nil
    let whole = try fileBytes(path)
    for cut in [records[2].lowerBound + 2, records[2].lowerBound + 30, records[2].upperBound - 1] {
      var bytes = whole
      bytes.removeSubrange(cut...)
      try writeBytes(bytes, to: path)
      let reader = try vault.unlock(password: password("first"), access: .read)
      XCTAssertNil(reader.indexDamage, "cut at \(cut)")
      XCTAssertEqual(reader.entries.map(\.record.name), ["a", "b"])
    }
    // Zeros where an append never reached the disk are a torn tail too.
    try writeBytes(try fileBytes(path) + [UInt8](repeating: 0, count: 100), to: path)
    XCTAssertNil(try vault.unlock(password: password("first"), access: .read).indexDamage)

    // Without a killed writer's mark, the tear may be a copy still being synced, or damage:
    // the segment is kept, and verify names it.
    var writer: Space? = try vault.unlock(password: password("first"), access: .write)
    XCTAssertEqual(writer!.entries.map(\.record.name), ["a", "b"])
    XCTAssertTrue(fileExists(path), "kept without a mark")
    try writer!.appendImported([record(named: "c2")])
    XCTAssertTrue(fileExists(path), "a compaction keeps it too")
    XCTAssertTrue(
      SpaceVerifier(space: writer!).verify().contains(
        .tornJournalSegment(path: "Journal/" + parentless(path))))
    writer = nil

    // A killed writer's mark: the next writer settles it.
    let directory = parentFolder(parentFolder(path))
    try writeBytes([], to: directory + "/.tmp-writer-0123456789abcdef")
    let settled = try vault.unlock(password: password("first"), access: .write)
    XCTAssertEqual(settled.entries.map(\.record.name), ["a", "b", "c2"])
    XCTAssertFalse(fileExists(path), "the torn segment was compacted away")
    XCTAssertFalse(
      SpaceVerifier(space: settled).verify().contains {
        if case .tornJournalSegment = $0 { true } else { false }
      })
  }

  func parentless(_ path: String) -> String {
    String(path.split(separator: "/").last!)
  }

  func testAChangeThatIsDurableIsKeptWhenTheCompactionAfterItFails() throws {
    // A space big enough that its snapshot does not fit under a small file-size limit,
    // small enough that every change compacts it.
    try space.appendImported((0..<1000).map { record(named: "p\($0)") })
    try space.compactJournal()
    // Segments of earlier commands, one each, so that the next change makes a compaction due.
    for number in 0..<SpaceJournal.smallSpaceSegmentCount {
      space = try reopen(.write)
      try space.appendImported([record(named: "q\(number)")])
    }
    space = try reopen(.write)
    let before = space.entries.count
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    let previous = limit
    let previousHandler = signal(SIGXFSZ, SIG_IGN)
    limit.rlim_cur = 32 << 10
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    defer {
      var restored = previous
      setrlimit(Int32(RLIMIT_FSIZE.rawValue), &restored)
      signal(SIGXFSZ, previousHandler)
    }
    XCTAssertNoThrow(try space.appendImported([record(named: "after")]), "the change is durable: no error")
    XCTAssertNoThrow(try space.setSelection([0], to: true))
    var restored = previous
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &restored)
    let reopened = try reopen()
    XCTAssertEqual(reopened.entries.count, before + 1)
    XCTAssertEqual(reopened.entries.last?.record.name, "after")
    XCTAssertTrue(reopened.entries[0].selected)
  }

  func testASelectionWinsWhenTheClockIsBehind() throws {
    try space.appendImported([record(named: "a")])
    let id = space.entries[0].record.id
    // A selection stamped a day ahead, as a copy with a fast clock (or a clock since set
    // back) leaves it in the journal.
    let dayAhead = Timestamp.now().nanosecondsSince1970 + 86_400 * 1_000_000_000
    let ahead = try JournalSegmentWriter(directory: space.journalDirectory, key: space.master.journalKey())
    try ahead.append([.selection(id, selected: true, stamp: dayAhead)])
    space = try reopen(.write)
    XCTAssertTrue(space.entries[0].selected)
    // Stamped with this machine's clock alone, the unselection would lose to it.
    try space.setSelection([0], to: false)
    XCTAssertFalse(space.entries[0].selected)
    XCTAssertFalse(try reopen().entries[0].selected)
  }

  func testAJournalFileThatIsNotARegularFileIsDamageAndDoesNotHang() throws {
    let fifo = space.journalDirectory + "/j-" + BlobID.random().hex
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    space = nil
    let opened = try vault.unlock(password: password("first"), access: .read)
    guard case .damagedIndex(fifo, let reason)? = opened.indexDamage else { return XCTFail("not detected") }
    XCTAssertEqual(reason, "not a regular file")
  }

  func testARecordPaddedToAnotherLengthIsDamage() throws {
    let (path, _) = try segmentOfThreeRecords()
    let id = BlobID(hex: String(parentless(path).dropFirst(2)))!
    var plaintext = JournalSegment.plaintext([.deleted(.random())])
    plaintext += [UInt8](repeating: 0, count: Padme.paddedLength(plaintext.count * 4) - plaintext.count)
    let key = space.master.journalKey()
    let sealed = JournalSegment.seal(
      plaintext, header: JournalSegment.header(id: id), record: 3, key: key, nonce: Sodium.randomBytes(24))
    try writeBytes(try fileBytes(path) + sealed, to: path)
    space = nil
    let opened = try vault.unlock(password: password("first"), access: .read)
    guard case .damagedIndex(path, let reason)? = opened.indexDamage else { return XCTFail("not detected") }
    XCTAssertEqual(reason, "record 4 is not padded as records are")
  }

  /// A big snapshot is checked on another thread as it is decrypted: damage anywhere in it
  /// is named as reading it in turn names it, and nothing of it is listed.
  func testDamageInABigSnapshotIsNamedAsInASmallOne() throws {
    func entries(_ count: Int) -> [UInt8] {
      var writer = ByteWriter()
      for number in 0..<count {
        JournalEntry.added(record(named: "photo \(number)"), order: Int64(number)).encode(into: &writer)
      }
      return writer.output
    }
    let cases: [(what: String, plaintext: [UInt8], reason: String)] = [
      (
        "an unknown type deep inside", entries(6000) + [99] + entries(6000),
        "entry 6001 has an unknown type 99"
      ),
      (
        "bytes after the end mark", entries(12_000) + [0, 0, 1],
        "entry 12001 is followed by bytes that are not padding"
      ),
    ]
    for (what, plaintext, reason) in cases {
      XCTAssertGreaterThan(plaintext.count, SpaceJournal.parallelDecodingSize, what)
      try writeSnapshot(plaintext: plaintext)
      let opened = try reopen()
      guard case .damagedIndex(_, let named)? = opened.indexDamage else {
        XCTFail("\(what): not detected")
        continue
      }
      XCTAssertEqual(named, reason, what)
      XCTAssertTrue(opened.entries.isEmpty, what)
      space = opened
    }
  }

  /// A big snapshot's entries are applied while later chunks are still being decrypted: a
  /// chunk deep inside that does not authenticate (or a malformed entry after many good
  /// ones) leaves the state as the snapshots read before it made it, without a photo of its.
  func testABigSnapshotThatFailsLateAddsNothingToTheSnapshotsBeforeIt() throws {
    let kept = record(named: "kept")
    // Named so that it is read first.
    try writeSnapshot([.added(kept, order: 1)], id: BlobID(hex: String(repeating: "0", count: 32))!)
    var writer = ByteWriter()
    for number in 0..<12_000 {
      JournalEntry.added(record(named: "photo \(number)"), order: Int64(number + 2)).encode(into: &writer)
    }
    let big = BlobID(hex: String(repeating: "f", count: 32))!
    try writeSnapshot(
      plaintext: writer.output + [JournalEntry.TypeCode.end.rawValue], id: big, replacing: false)
    let path = space.journalDirectory + "/" + SpaceJournal.snapshotPrefix + big.hex
    var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
    XCTAssertGreaterThan(bytes.count, SpaceJournal.parallelDecodingSize)
    // A byte of the last chunk but one.
    bytes[bytes.count - BlobFormat.chunkSize - 100] ^= 1
    try bytes.write(to: URL(fileURLWithPath: path))
    let opened = try reopen()
    guard case .damagedIndex(path, let reason)? = opened.indexDamage else { return XCTFail("not named") }
    XCTAssertTrue(reason.contains("does not authenticate"), reason)
    let salvaged = SpaceJournal.salvage(directory: opened.journalDirectory, master: opened.master)
    XCTAssertEqual(salvaged.entries().map(\.record.name), ["kept"])
  }

  /// A file in `Journal/` with a blob's public prefix and a size of 1 GiB (sparse: it costs
  /// no disk), which anyone who can write the folder can leave (a sync engine, a cloud
  /// folder): the open names it without making its size in memory (the security review: a
  /// mapping populated whole made every open take 1 GiB).
  func testAJunkSnapshotDoesNotMakeAnOpenTouchItsSize() throws {
    let path = space.journalDirectory + "/" + SpaceJournal.snapshotPrefix + BlobID.random().hex
    let prefix =
      BlobFormat.magic + [BlobFormat.paddedVersion, BlobKind.snapshot.rawValue]
      + [UInt8](repeating: 1, count: BlobFormat.streamHeaderLength)
    try writeBytes(prefix, to: path)
    XCTAssertEqual(truncate(path, 1 << 30), 0)
    var before = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &before)
    let opened = try reopen()
    var after = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &after)
    guard case .damagedIndex(path, _)? = opened.indexDamage else { return XCTFail("not named") }
    XCTAssertLessThan(after.ru_minflt - before.ru_minflt, 50_000, "pages faulted in by one open")
  }

  /// A photo added twice with equal order, import time, name and hash but another record
  /// (found by the security review's fuzzing): the same state whichever is read first.
  func testAPhotoAddedTwiceWithEqualKeysMergesInAnyOrder() {
    let id = BlobID.random()
    func record(height: Int) -> PhotoRecord {
      PhotoRecord(
        id: id, name: "a.jpg", bytes: 3, format: .jpeg, width: 2, height: height, orientation: 1,
        modifiedAt: Timestamp(seconds: 5), importedAt: Timestamp(seconds: 1),
        contentHash: String(repeating: "0", count: 64))
    }
    let (first, second) = (
      JournalEntry.added(record(height: 1), order: 0), JournalEntry.added(record(height: 7), order: 0)
    )
    var forward = SpaceState()
    forward.apply(first)
    forward.apply(second)
    var backward = SpaceState()
    backward.apply(second)
    backward.apply(first)
    XCTAssertEqual(forward.entries(), backward.entries())
    XCTAssertEqual(forward.compacted(), backward.compacted())
  }

  func testEntriesMergeInAnyOrder() throws {
    let (a, b) = (record(named: "a"), record(named: "b"))
    let entries: [JournalEntry] = [
      .added(a, order: 10), .added(b, order: 5), .selection(a.id, selected: true, stamp: 100),
      .selection(a.id, selected: false, stamp: 50), .selection(b.id, selected: true, stamp: 7),
      .deleted(b.id), .added(b, order: 1), .selection(b.id, selected: true, stamp: 200),
      .added(a, order: 20),
    ]
    var expected = SpaceState()
    for entry in entries { expected.apply(entry) }
    XCTAssertEqual(expected.entries().map(\.record.name), ["a"])
    XCTAssertEqual(expected.entries().map(\.selected), [true])
    var generator = SeededGenerator(seed: 42)
    for _ in 0..<50 {
      var state = SpaceState()
      // Shuffled, and some applied twice: the same state.
      for entry in (entries + entries.prefix(4)).shuffled(using: &generator) { state.apply(entry) }
      XCTAssertEqual(state.entries(), expected.entries())
      XCTAssertEqual(state.compacted(), expected.compacted())
    }
    // At equal stamps, selecting wins, whichever comes first.
    for pair in [[true, false], [false, true]] {
      var state = SpaceState()
      state.apply(.added(a, order: 1))
      for selected in pair { state.apply(.selection(a.id, selected: selected, stamp: 9)) }
      XCTAssertTrue(state.isSelected(a.id))
    }
  }

  func testEntriesRoundTripThroughTheirEncoding() throws {
    var name = record(named: "IMG_0001 é \u{202E}.jpg")
    name.modifiedAt = Timestamp(seconds: -5, nanoseconds: 999_999_999)
    var heic = record(named: "IMG_0002.HEIC")
    heic.format = .heic
    let entries: [JournalEntry] = [
      .added(name, order: .min), .deleted(.random()),
      .selection(.random(), selected: true, stamp: JournalEntry.latestStamp()),
      .added(heic, order: 1),
    ]
    var writer = ByteWriter()
    for entry in entries { entry.encode(into: &writer) }
    writer.byte(0)
    var decoded: [JournalEntry] = []
    let length = try writer.output.withUnsafeBytes { try JournalEntry.decodeAll($0) { decoded.append($0) } }
    XCTAssertEqual(decoded, entries)
    XCTAssertEqual(length, writer.output.count)
    // Malformed: an unknown type, a selection that is not 0 or 1, no end mark.
    for (bytes, reason) in [
      ([UInt8](arrayLiteral: 99), "unknown type 99"),
      ([3] + [UInt8](repeating: 0, count: 16) + [2], "malformed selection"),
      ([2] + [UInt8](repeating: 1, count: 16), "no end mark"),
    ] {
      XCTAssertThrowsError(try bytes.withUnsafeBytes { try JournalEntry.decodeAll($0) { _ in } }) { error in
        XCTAssertTrue((error as? JournalDecodingError)?.reason.contains(reason) == true, "\(error)")
      }
    }
  }

  func testCompactionKeepsTheStateAndDeletionsForGood() throws {
    let records = (0..<5).map { record(named: "p\($0)") }
    try space.appendImported(records)
    try space.setSelection([1, 3], to: true)
    try space.deletePhotos(ids: [records[2].id])
    let before = space.entries
    try space.compactJournal()
    let names = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory)
    XCTAssertEqual(names.count, 1, "\(names)")
    let reopened = try reopen()
    XCTAssertEqual(reopened.entries, before)
    XCTAssertTrue(reopened.wasDeleted(records[2].id))
  }

  /// Writes `entries` as the space's only journal file: a snapshot.
  func writeSnapshot(_ entries: [JournalEntry], id: BlobID = .random(), replacing: Bool = true) throws {
    try writeSnapshot(plaintext: JournalEntry.encodeAll(entries), id: id, replacing: replacing)
  }

  /// A snapshot of `plaintext` as it is (padded by the blob), well formed or not.
  func writeSnapshot(plaintext: [UInt8], id: BlobID = .random(), replacing: Bool = true) throws {
    if replacing {
      for name in try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory) {
        try FileManager.default.removeItem(atPath: space.journalDirectory + "/" + name)
      }
    }
    let file = try TemporaryFile(in: space.journalDirectory)
    let writer = try BlobWriter(
      kind: .snapshot, key: space.master.blobKey(kind: .snapshot, id: id), output: file)
    try writer.write(plaintext)
    try writer.finish()
    try file.replace(space.journalDirectory + "/" + SpaceJournal.snapshotPrefix + id.hex)
  }

  func testASnapshotsRecordsAreDecodedOnlyWhenAskedForAndGiveTheSameState() throws {
    let (plain, dated, gone, twice, early) = (
      record(named: "plain"), record(named: "dated"), record(named: "gone"), record(named: "twice"),
      record(named: "early")
    )
    var later = twice
    later.name = "twice, added again"
    let details = PhotoDetails(
      taken: CaptureTime(localSeconds: 1_600_000_000, utcOffsetMinutes: 60), cameraMake: "Make")
    // Plain photos, details (one superseded, one read before its photo was added), a
    // selection, a deletion, a photo added twice.
    let entries: [JournalEntry] = [
      .details(early.id, details, stamp: 3), .added(plain, order: 1), .added(dated, order: 2),
      .added(gone, order: 3), .added(twice, order: 4), .added(later, order: 9), .added(early, order: 5),
      .selection(plain.id, selected: true, stamp: 7), .details(dated.id, details, stamp: 8),
      .details(dated.id, PhotoDetails(), stamp: 6), .details(plain.id, PhotoDetails(), stamp: 8),
      .deleted(gone.id),
    ]
    var expected = SpaceState()
    for entry in entries { expected.apply(entry) }
    try writeSnapshot(entries)
    let reopened = try reopen()
    XCTAssertEqual(reopened.entries, expected.entries())
    XCTAssertEqual(reopened.entries.map(\.record.name), ["plain", "dated", "twice", "early"])
    XCTAssertEqual(reopened.entries.map(\.record.taken), [nil, details.taken, nil, details.taken])
    XCTAssertEqual(reopened.journal?.state.compacted(), expected.compacted())
    // Only the photo whose details came first was decoded at open; scoping and sorting read
    // the others' dates from the snapshot's bytes, as they would from records.
    XCTAssertEqual(reopened.entries.decodedCount, 1)
    for sort in PhotoSort.allCases {
      XCTAssertEqual(
        PhotoScope(sort: sort).positions(of: reopened.entries, members: [], zone: .current),
        PhotoScope(sort: sort).positions(of: Array(reopened.entries), members: [], zone: .current))
    }
    XCTAssertEqual(PhotoDates.of(reopened.entries), PhotoDates.of(Array(reopened.entries)))
    // Names read alone (`SpaceCatalog.quickShownNames`), from the bytes or a record.
    XCTAssertEqual(
      reopened.entries.indices.map {
        reopened.entries.withNameBytes(at: $0) { String(decoding: $0, as: UTF8.self) }
      },
      ["plain", "dated", "twice", "early"])
  }

  /// Random journals (photos added once or twice, deleted, selected, their details read
  /// before or after them, again and again) read the same applied one by one, from a
  /// snapshot of their entries in any order, and from a snapshot of their compaction, which
  /// holds every photo undecoded.
  func testRandomJournalsReadTheSameAppliedFromASnapshotAndCompacted() throws {
    var generator = SeededGenerator(seed: 2020)
    // The last round's snapshots are big enough to be read on several threads.
    for (round, count) in ((0..<10).map { 5 + $0 * 20 } + [15_000]).enumerated() {
      let photos = (0..<count).map { record(named: "p\($0)") }
      var entries: [JournalEntry] = []
      for _ in 0..<(photos.count * 3) {
        let photo = photos.randomElement(using: &generator)!
        let stamp = Int64.random(in: 1...50, using: &generator)
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<4: entries.append(.added(photo, order: .random(in: 1...40, using: &generator)))
        case 4: entries.append(.deleted(photo.id))
        case 5..<7:
          entries.append(.selection(photo.id, selected: Bool.random(using: &generator), stamp: stamp))
        default:
          let taken = CaptureTime(
            localSeconds: .random(in: 1_500_000_000...1_600_000_000, using: &generator), utcOffsetMinutes: 60)
          entries.append(
            .details(
              photo.id, PhotoDetails(taken: Bool.random(using: &generator) ? taken : nil), stamp: stamp))
        }
      }
      var expected = SpaceState()
      for entry in entries { expected.apply(entry) }
      try writeSnapshot(entries.shuffled(using: &generator))
      var reopened = try reopen()
      XCTAssertEqual(reopened.entries, expected.entries(), "round \(round): the entries as a snapshot")
      XCTAssertEqual(reopened.journal?.state.compacted(), expected.compacted())
      space = reopened
      try writeSnapshot(expected.compacted())
      if count > 10_000 {
        let bytes = JournalEntry.encodeAll(expected.compacted()).count
        XCTAssertGreaterThan(bytes, SpaceJournal.parallelDecodingSize, "read on several threads")
      }
      reopened = try reopen()
      XCTAssertEqual(reopened.entries, expected.entries(), "round \(round): the compaction")
      XCTAssertEqual(reopened.entries.decodedCount, 0)
      XCTAssertEqual(PhotoDates.of(reopened.entries), PhotoDates.of(Array(reopened.entries)))
      for photo in photos {
        XCTAssertEqual(reopened.journal?.state.hasDetails(photo.id), expected.hasDetails(photo.id))
      }
      space = reopened
    }
  }

  /// Two copies' snapshots side by side (a union sync): one lists a photo without details,
  /// the other with them. Whichever is read first, the photo gets the other's details from
  /// that snapshot's own bytes (the security review found the details' offset in one
  /// snapshot read from the other's bytes: every command trapped, repair included).
  func testTwoSnapshotsOneWithoutAPhotosDetailsGiveItTheOthers() throws {
    let photo = record(named: "photo")
    let other = record(named: "other")
    let details = PhotoDetails(
      taken: CaptureTime(localSeconds: 1_600_000_000, utcOffsetMinutes: 60), cameraMake: "Make")
    let bare: [JournalEntry] = [.added(photo, order: 1), .added(other, order: 2)]
    let read: [JournalEntry] = bare + [.details(photo.id, details, stamp: 5)]
    let low = BlobID(hex: String(repeating: "0", count: 31) + "1")!
    let high = BlobID(hex: String(repeating: "f", count: 32))!
    for (first, second) in [(bare, read), (read, bare)] {
      try writeSnapshot(first, id: low)
      try writeSnapshot(second, id: high, replacing: false)
      let reopened = try reopen()
      XCTAssertEqual(reopened.entries.map(\.record.name), ["photo", "other"])
      XCTAssertEqual(reopened.entries.map(\.record.taken), [details.taken, nil])
      XCTAssertEqual(reopened.entries.map(\.record.cameraMake), ["Make", nil])
      XCTAssertEqual(
        PhotoDates.of(reopened.entries), PhotoDates.of(Array(reopened.entries)),
        "sorting reads the same dates")
      space = reopened
    }
  }

  /// A photo whose details change again and again keeps one record, not one per change.
  func testRepeatedDetailsKeepOneRecordAPhoto() {
    var state = SpaceState()
    let photo = record(named: "photo")
    state.apply(.added(photo, order: 1))
    for stamp in 2..<2002 {
      state.apply(
        .details(photo.id, PhotoDetails(cameraMake: stamp % 2 == 0 ? "A" : "B"), stamp: Int64(stamp)))
    }
    XCTAssertEqual(state.entries().heldRecords, 1)
  }

  func testAppendsCostWhatTheyChange() throws {
    try space.appendImported((0..<200).map { record(named: "p\($0)") })
    let segment = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory)
      .first { $0.hasPrefix("j-") }!
    let path = space.journalDirectory + "/" + segment
    let before = fileSize(path)
    try space.setSelection([7], to: true)
    // One selection entry (26 bytes), its end mark and padding, and a record's framing.
    XCTAssertLessThan(fileSize(path) - before, 100)
  }

  func testASnapshotDecodedInSlicesGivesTheSameEntriesAndNamesTheSameDamage() throws {
    var writer = ByteWriter()
    var entries: [JournalEntry] = []
    for number in 0..<3000 {
      let entry: JournalEntry
      switch number % 5 {
      case 3: entry = .selection(.random(), selected: number % 2 == 0, stamp: Int64(number))
      case 4: entry = .deleted(.random())
      default:
        entry = .added(record(named: String(repeating: "n", count: number % 300)), order: Int64(number))
      }
      entry.encode(into: &writer)
      entries.append(entry)
    }
    writer.byte(0)
    let plaintext = writer.output + [UInt8](repeating: 0, count: 7)
    for slices in [1, 2, 3, 8, 5000] {
      var decoded: [JournalEntry] = []
      let length = try plaintext.withUnsafeBytes {
        try JournalEntry.decodeAllInParallel($0, slices: slices) { decoded.append($0) }
      }
      XCTAssertEqual(decoded, entries, "\(slices) slices")
      XCTAssertEqual(length, writer.output.count)
    }
    // Damage deep inside: the same entry is named, whichever slice meets it.
    var damaged = plaintext
    var offset = 0
    for entry in entries.prefix(2000) {
      var one = ByteWriter()
      entry.encode(into: &one)
      offset += one.output.count
    }
    damaged[offset] = 99  // entry 2001's type (no type has this code)
    for slices in [1, 4] {
      XCTAssertThrowsError(
        try damaged.withUnsafeBytes { try JournalEntry.decodeAllInParallel($0, slices: slices) { _ in } }
      ) {
        error in
        let failure = error as? JournalDecodingError
        XCTAssertEqual(failure?.entry, 2001, "\(slices) slices")
        XCTAssertEqual(failure?.reason, "has an unknown type 99")
      }
    }
  }

  func testRepairKeepsWhatStillReadsOfADamagedJournal() throws {
    let records = ["a", "b", "c"].map { record(named: $0) }
    try space.appendImported(records)
    try space.setSelection([0], to: true)
    try space.deletePhotos(ids: [records[2].id])
    try space.compactJournal()
    space = try reopen(.write)
    try space.appendImported([record(named: "d")])
    let segment = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory)
      .first { $0.hasPrefix("j-") }!
    let path = space.journalDirectory + "/" + segment
    space = nil
    var bytes = try fileBytes(path)
    bytes[bytes.count - 5] ^= 1
    try writeBytes(bytes, to: path)
    let damaged = try vault.unlock(password: password("first"), access: .write)
    XCTAssertNotNil(damaged.indexDamage)
    let summary = try SpaceVerifier(space: damaged).repair()
    XCTAssertTrue(summary.indexRebuilt)
    // The snapshot still reads: its photos and its deletion are kept. The selection is
    // cleared (the damaged part may have changed it).
    XCTAssertEqual(damaged.entries.map(\.record.name), ["a", "b"])
    XCTAssertEqual(damaged.entries.map(\.selected), [false, false])
    XCTAssertTrue(damaged.wasDeleted(records[2].id))
  }
}
