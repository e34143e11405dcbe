import Foundation
import XCTest

@testable import VaultCore

/// `JournalSegment.growth`, which decides whether a keyless folder's copy of a segment
/// replaces the space's own: over random segments and random changes to a copy, only a copy
/// that begins with the space's and adds records that authenticate (a torn tail after them
/// allowed) grew; one no longer is never taken; anything else is refused.
final class JournalSegmentGrowthTests: XCTestCase {
  var folder = ""
  let key = MasterKey.generate().journalKey()
  let otherKey = MasterKey.generate().journalKey()

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  /// What is done to the copy, and the answer it must get.
  enum Change: CaseIterable {
    case moreRecords, moreRecordsAndATornTail, identical, cutShort, zeros, sparseZeros, garbage
    case anotherKeysRecord, changedPrefix

    var expected: JournalSegment.Growth? {
      switch self {
      case .moreRecords, .moreRecordsAndATornTail: return .grew
      case .identical, .cutShort: return .notLonger
      default: return nil  // refused, for whatever reason
      }
    }
  }

  func testOnlyACopyWithMoreRecordsOfTheSpaceGrew() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for round in 0..<Change.allCases.count * 8 {
      let change = Change.allCases[round % Change.allCases.count]
      let id = BlobID.random()
      let records = Int.random(in: 1...4, using: &random)
      let original = segment(id: id, records: 0..<records, key: key)
      let copy = try changed(original, by: change, id: id, records: records, using: &random)
      let existing = folder + "/space-\(round)"
      let incoming = folder + "/copy-\(round)"
      try Data(original).write(to: URL(fileURLWithPath: existing))
      try Data(copy.bytes).write(to: URL(fileURLWithPath: incoming))
      if copy.sparseLength > 0 {
        XCTAssertEqual(truncate(incoming, off_t(copy.bytes.count + copy.sparseLength)), 0)
      }
      let growth = JournalSegment.growth(of: incoming, over: existing, id: id, key: key)
      let context = "seed \(seed), round \(round), \(change): \(growth)"
      if let expected = change.expected {
        XCTAssertEqual(growth, expected, context)
      } else if case .refused = growth {
      } else {
        XCTFail(context)
      }
    }
  }

  /// A copy of a segment with one more record whose length claims 256 MiB, made sparse to a
  /// gibibyte with one byte at its end (security review: each command read that record,
  /// 580 MB and over a second, for ever, since such a folder is never taken in): it is
  /// refused, damage to a reader, and neither reads its holes, the first time or the next.
  func testARecordMadeSparseIsRefusedWithoutBeingRead() throws {
    let id = BlobID.random()
    let original = segment(id: id, records: 0..<2, key: key)
    let existing = folder + "/space"
    let incoming = folder + "/copy"
    try Data(original).write(to: URL(fileURLWithPath: existing))
    var writer = ByteWriter(output: original)
    writer.uint32(UInt32(JournalSegment.recordLimit))
    try Data(writer.output).write(to: URL(fileURLWithPath: incoming))
    XCTAssertEqual(truncate(incoming, 1 << 30), 0)
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: incoming))
    try handle.seek(toOffset: (1 << 30) - 1)
    try handle.write(contentsOf: Data([1]))
    try handle.close()
    for time in ["first", "second"] {
      let before = try Self.bytesRead()
      let growth = JournalSegment.growth(of: incoming, over: existing, id: id, key: key)
      guard case .refused(let reason) = growth, reason.contains("record 3 does not authenticate") else {
        return XCTFail("\(time): \(growth)")
      }
      XCTAssertThrowsError(try JournalSegment.read(path: incoming, id: id, key: key) { _ in }, time)
      XCTAssertLessThan(try Self.bytesRead() - before, 1 << 20, time)
    }
  }

  /// The bytes this process has read so far (`rchar`: every read and pread, cached or not).
  static func bytesRead() throws -> Int {
    let io = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
    let line = try XCTUnwrap(io.split(separator: "\n").first { $0.hasPrefix("rchar: ") })
    return try XCTUnwrap(Int(line.dropFirst(7)))
  }

  /// The records numbered `numbers` of the segment named `id`, each of one deletion; from the
  /// first, with the segment's header.
  func segment(id: BlobID, records numbers: Range<Int>, key: SecureBytes) -> [UInt8] {
    let header = JournalSegment.header(id: id)
    var bytes = numbers.lowerBound == 0 ? header : []
    for number in numbers {
      bytes += JournalSegment.seal(
        JournalSegment.plaintext([.deleted(.random())]), header: header, record: UInt64(number), key: key,
        nonce: Sodium.randomBytes(JournalSegment.nonceLength))
    }
    return bytes
  }

  /// The copy's bytes after `change`, and how many zeros to add after them as a hole.
  func changed(
    _ original: [UInt8], by change: Change, id: BlobID, records: Int, using random: inout SeededGenerator
  ) throws -> (bytes: [UInt8], sparseLength: Int) {
    let more = records..<records + Int.random(in: 1...3, using: &random)
    switch change {
    case .moreRecords:
      return (original + segment(id: id, records: more, key: key), 0)
    case .moreRecordsAndATornTail:
      let next = segment(id: id, records: more.upperBound..<more.upperBound + 1, key: key)
      return (original + segment(id: id, records: more, key: key) + next.prefix(next.count / 2), 0)
    case .identical:
      return (original, 0)
    case .cutShort:
      return (Array(original.prefix(Int.random(in: 0..<original.count, using: &random))), 0)
    case .zeros:
      return (original + [UInt8](repeating: 0, count: Int.random(in: 1...100_000, using: &random)), 0)
    case .sparseZeros:
      return (original, (1 << 30) - original.count)
    case .garbage:
      return (
        original
          + (0..<Int.random(in: 1...5000, using: &random)).map { _ in
            UInt8.random(in: 0...255, using: &random)
          }, 0
      )
    case .anotherKeysRecord:
      return (original + segment(id: id, records: more, key: otherKey), 0)
    case .changedPrefix:
      var bytes = original + segment(id: id, records: more, key: key)
      bytes[Int.random(in: 0..<original.count, using: &random)] ^= 1
      return (bytes, 0)
    }
  }
}
