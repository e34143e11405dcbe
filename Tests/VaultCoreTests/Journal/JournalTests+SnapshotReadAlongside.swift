import Foundation
import XCTest

@testable import VaultCore

/// A big snapshot read while it is decrypted (`SnapshotDecryption`): what the security review
/// of issue 20 found (each failed before its fix), and its stress test of the threaded read.
extension JournalTests {
  /// `count` photos' `added` entries, encoded (about 130 bytes each).
  private func addedEntries(_ count: Int, from first: Int = 0) -> [UInt8] {
    var writer = ByteWriter()
    for number in first..<first + count {
      JournalEntry.added(record(named: "photo \(number)"), order: Int64(number + 2)).encode(into: &writer)
    }
    return writer.output
  }

  private func faults() -> (minor: Int, maxRSSKB: Int) {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return (usage.ru_minflt, usage.ru_maxrss)
  }

  /// F1: a real snapshot of the space (here 1,000 photos, ~110 KB, 2 chunks) grown to 1 GiB
  /// with `truncate` (sparse, no disk, no key needed): its first chunk authenticates, so the
  /// open reserves room for 1 GiB / 101 = 10.6 million photos (an index of 2^25 slots, 256 MiB
  /// zero-filled, plus ~700 MB of array capacity) before the last chunk fails.
  func testARealSnapshotGrownSparseReservesOnlyForWhatAuthenticated() throws {
    let id = BlobID.random()
    // ~1.2 MB (19 chunks): the first batches are applied well before the last chunk fails
    // (with 2 chunks it is a race whether the first batch is applied at all).
    try writeSnapshot(plaintext: addedEntries(12_000) + [JournalEntry.TypeCode.end.rawValue], id: id)
    let path = space.journalDirectory + "/" + SpaceJournal.snapshotPrefix + id.hex
    XCTAssertEqual(truncate(path, 1 << 30), 0)

    var before = faults()
    let opened = try reopen()
    var after = faults()
    space = opened
    guard case .damagedIndex(path, _)? = opened.indexDamage else { return XCTFail("not named") }
    XCTAssertLessThan(after.minor - before.minor, 30_000, "pages faulted in by one open")
    XCTAssertLessThan(after.maxRSSKB - before.maxRSSKB, 100_000, "KB of memory made by one open")

    before = faults()
    XCTAssertTrue(
      SpaceJournal.salvage(directory: opened.journalDirectory, master: opened.master).entries().isEmpty)
    after = faults()
    XCTAssertLessThan(after.minor - before.minor, 30_000, "pages faulted in by one salvage")
  }

  /// F2: an entry that is malformed (its length readable, its fields not) and becomes whole in
  /// a chunk after the first: the scanner throws on the decrypting thread after that chunk
  /// was decrypted into the buffer but before `publish` moved `decrypted`, so `abandon()`
  /// (what `readAlongside` takes for `written`) is a chunk short: SnapshotBytes.deinit wipes
  /// [0, written) and munmaps a chunk of plaintext unwiped.
  func testAScannerErrorLeavesNoDecryptedChunkUnwiped() throws {
    let chunk = BlobFormat.chunkSize
    // ~110 KB of photos, so that the bad entry is whole only in chunk 1 (bytes 64 Ki..128 Ki).
    var plaintext = addedEntries(1_100)
    XCTAssertGreaterThan(plaintext.count, chunk + 100)
    // A selection whose `selected` byte is 2: its length is fixed, so the scanner reads it.
    plaintext +=
      [JournalEntry.TypeCode.selection.rawValue] + [UInt8](repeating: 7, count: 16) + [2]
      + [UInt8](repeating: 0, count: 8)
    plaintext += addedEntries(600, from: 5_000) + [JournalEntry.TypeCode.end.rawValue]
    let id = BlobID.random()
    try writeSnapshot(plaintext: plaintext, id: id)
    let path = space.journalDirectory + "/" + SpaceJournal.snapshotPrefix + id.hex

    let reader = try BlobReader(
      path: path, kind: .snapshot, key: space.master.blobKey(kind: .snapshot, id: id), what: "the snapshot")
    let length = reader.remainingFileBytes
    let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
    memory.initializeMemory(as: UInt8.self, repeating: 0)
    defer { memory.deallocate() }
    // As `SnapshotBytes.readAlongside` does.
    let decryption = SnapshotDecryption(reading: reader, into: memory)
    var thrown: Error?
    do {
      while true {
        if try decryption.take().isFinal { break }
      }
      decryption.finish()
    } catch {
      thrown = error
    }
    let written = decryption.abandon()
    XCTAssertNotNil(thrown)
    let past = Array(memory[written..<min(length, written + chunk)])
    let plaintextPast = Array(plaintext[written..<min(plaintext.count, written + chunk)])
    let left = zip(past, plaintextPast).filter { $0 == $1 && $0 != 0 }.count
    XCTAssertEqual(left, 0, "decrypted plaintext past what SnapshotBytes wipes")
  }

  /// For ThreadSanitizer: the threaded read's paths again and again through a real open
  /// (a good big snapshot, one failing late on a chunk, one whose scanner throws in the middle,
  /// a second snapshot after a good one).
  func testTheThreadedReadsPathsOneAfterAnother() throws {
    let keptID = BlobID(hex: String(repeating: "0", count: 32))!
    try writeSnapshot([.added(record(named: "kept"), order: 1)], id: keptID)
    let bigID = BlobID(hex: String(repeating: "f", count: 32))!
    let good = addedEntries(11_000)
    let path = space.journalDirectory + "/" + SpaceJournal.snapshotPrefix + bigID.hex
    for round in 0..<6 {
      switch round % 3 {
      case 0:
        try writeSnapshot(plaintext: good + [JournalEntry.TypeCode.end.rawValue], id: bigID, replacing: false)
        let opened = try reopen()
        space = opened
        XCTAssertNil(opened.indexDamage)
        XCTAssertEqual(opened.entries.count, 11_001)
      case 1:
        try writeSnapshot(plaintext: good + [JournalEntry.TypeCode.end.rawValue], id: bigID, replacing: false)
        var bytes = try fileBytes(path)
        bytes[bytes.count - 3 * BlobFormat.chunkSize] ^= 1
        try writeBytes(bytes, to: path)
        let opened = try reopen()
        space = opened
        XCTAssertNotNil(opened.indexDamage)
        XCTAssertEqual(
          SpaceJournal.salvage(directory: opened.journalDirectory, master: opened.master).entries().map(
            \.record.name),
          ["kept"])
      default:
        let bad: [UInt8] =
          [JournalEntry.TypeCode.selection.rawValue] + [UInt8](repeating: 7, count: 16) + [2]
          + [UInt8](repeating: 0, count: 8)
        try writeSnapshot(
          plaintext: Array(addedEntries(3_000)) + bad + good + [JournalEntry.TypeCode.end.rawValue],
          id: bigID,
          replacing: false)
        let opened = try reopen()
        space = opened
        guard case .damagedIndex(_, let reason)? = opened.indexDamage else { return XCTFail("not named") }
        XCTAssertTrue(reason.contains("malformed selection"), reason)
        XCTAssertEqual(
          SpaceJournal.salvage(directory: opened.journalDirectory, master: opened.master).entries().map(
            \.record.name),
          ["kept"])
      }
    }
  }
}
