import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// The `offload remote` entry: its bytes (the vectors of docs/FORMAT.md), damage, and its
/// merge in any order, which a snapshot keeps.
final class OffloadJournalTests: XCTestCase {
  func decode(_ bytes: [UInt8]) throws -> [JournalEntry] {
    var decoded: [JournalEntry] = []
    try (bytes + [0]).withUnsafeBytes { _ = try JournalEntry.decodeAll($0) { decoded.append($0) } }
    return decoded
  }

  func encoded(_ entry: JournalEntry) -> [UInt8] {
    var writer = ByteWriter()
    entry.encode(into: &writer)
    return writer.output
  }

  func testTheVectorsOfTheFormat() throws {
    let vectors = try formatVectors(named: "offload entry")
    XCTAssertEqual(vectors.count, 2)
    for vector in vectors {
      let entry = JournalEntry.offloadRemote(
        try field(vector, "remote"), stamp: Int64(try numbersField(vector, "stamp")[0]))
      let bytes = try hexField(vector, "encoded")
      XCTAssertEqual(hexString(encoded(entry)), hexString(bytes))
      XCTAssertEqual(entry.encodedLength, bytes.count)
      XCTAssertEqual(bytes.withUnsafeBytes { JournalEntry.encodedLength(at: 0, in: $0) }, bytes.count)
      XCTAssertEqual(try decode(bytes), [entry])
    }
  }

  func testMalformedEntriesAreDamage() throws {
    let good = encoded(.offloadRemote("b2:bucket", stamp: 5))
    let future = JournalEntry.latestStamp() + 60_000_000_000
    for (why, bytes) in [
      ("an empty remote", Array(good.prefix(9)) + [0, 0]),
      ("a remote cut short", Array(good.dropLast())),
      ("a remote that is not UTF-8", Array(good.prefix(9)) + [0, 2, 0xC3, 0x28]),
      (
        "a remote past the limit",
        Array(good.prefix(9)) + [0x10, 0x01] + [UInt8](repeating: 0x61, count: 4097)
      ),
      ("a stamp from the far future", encoded(.offloadRemote("b2:bucket", stamp: future))),
    ] {
      XCTAssertThrowsError(try decode(bytes), why)
    }
  }

  /// Remotes merge to the latest (at equal stamps, the one whose bytes sort last) in any
  /// order, and a snapshot of the state is the same. Seeded: the seed is printed.
  func testRemotesMergeInAnyOrderAndSnapshotsKeepThem() {
    let remotes = ["a:x", "b:y", "sftp-box:/vault", "Été:z"]
    for seed in UInt64(0)..<300 {
      var random = SeededGenerator(seed: seed)
      var entries: [JournalEntry] = []
      var latest: (stamp: Int64, remote: String)?
      for _ in 0..<Int.random(in: 0...6, using: &random) {
        let (stamp, remote) = (
          Int64.random(in: 1...4, using: &random), remotes.randomElement(using: &random)!
        )
        entries.append(.offloadRemote(remote, stamp: stamp))
        if let was = latest,
          was.stamp > stamp || (was.stamp == stamp && !was.remote.utf8.lexicographicallyPrecedes(remote.utf8))
        {
          continue
        }
        latest = (stamp, remote)
      }
      var shuffled = SpaceState()
      for entry in entries.shuffled(using: &random) { shuffled.apply(entry) }
      XCTAssertEqual(shuffled.offloadRemote, latest?.remote, "seed \(seed)")
      var rebuilt = SpaceState()
      for entry in shuffled.compacted() { rebuilt.apply(entry) }
      XCTAssertEqual(rebuilt.offloadRemote, latest?.remote, "seed \(seed)")
      XCTAssertEqual(rebuilt.lastStamp, latest?.stamp ?? .min, "seed \(seed)")
    }
  }
}
