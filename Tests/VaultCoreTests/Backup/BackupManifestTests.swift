import Foundation
import XCTest

@testable import VaultCore

/// The manifest's text and the stamps of `removed/` folders, over seeded random values (the
/// seed is printed on failure; `VAULT_TEST_SEED` replays it).
final class BackupManifestTests: XCTestCase {
  private let seed = ProcessInfo.processInfo.environment["VAULT_TEST_SEED"].flatMap(UInt64.init) ?? 34_034

  func testAManifestReadsBackAsItWasWritten() throws {
    var random = SeededGenerator(seed: seed)
    for round in 0..<200 {
      var manifest = BackupManifest()
      for _ in 0..<Int(random.next() % 20) {
        let tag = hexString((0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let id = hexString((0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let folder = ["Photo", "Thumb", "Offloaded", "Journal/s-", "Journal/j-"][Int(random.next() % 5)]
        let md5 =
          random.next() % 5 == 0
          ? nil : hexString((0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        manifest.entries["\(tag)/\(folder)\(folder.hasPrefix("Journal") ? "" : "/")\(id)"] =
          BackupManifest.Entry(
            size: Int64(random.next() % (1 << 40)), md5: md5)
      }
      let text = manifest.encoded()
      XCTAssertEqual(try BackupManifest(text: text, source: "m"), manifest, "seed \(seed), round \(round)")
      let lines = String(decoding: text, as: UTF8.self).split(separator: "\n").map {
        $0.split(separator: " ")[2]
      }
      XCTAssertEqual(lines, lines.sorted(), "seed \(seed): not in path order")
    }
  }

  func testAMalformedLineIsNamed() {
    for text in ["12 abc x\n", "-1 - x\n", "12 -\n", "x - y\n", "12 - \n"] {
      XCTAssertThrowsError(try BackupManifest(text: Array(text.utf8), source: "REMOTE/manifest")) {
        XCTAssertEqual("\($0)", "'REMOTE/manifest': line 1 is not '<size> <md5> <path>'", text)
      }
    }
  }

  /// A restore writes where the manifest says: a path outside the vault's layout (the
  /// reviewer's `T/Photo/../../../T/key` moved a key out of the vault) rejects the manifest.
  func testAManifestNamingAPathOutsideTheVaultLayoutIsRejected() {
    var random = SeededGenerator(seed: seed)
    let hex = { (random: inout SeededGenerator) in
      hexString((0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }
    let tag = hex(&random)
    let valid = [
      "vault.json", "\(tag)/key", "\(tag)/recovery", "\(tag)/Journal/s-\(hex(&random))",
      "\(tag)/Journal/j-\(hex(&random))", "\(tag)/Photo/\(hex(&random))", "\(tag)/Thumb/\(hex(&random))",
      "\(tag)/Offloaded/\(hex(&random))",
    ]
    for path in valid {
      XCTAssertNoThrow(try BackupManifest(text: Array("1 - \(path)\n".utf8), source: "m"), path)
    }
    let insertions = ["..", ".", "", "x", "\u{1}", "\n", "Photo", tag]
    for round in 0..<300 {
      var parts = valid[Int(random.next() % UInt64(valid.count))].split(
        separator: "/", omittingEmptySubsequences: false
      ).map(String.init)
      switch random.next() % 4 {
      case 0:
        parts.insert(
          insertions[Int(random.next() % UInt64(insertions.count))],
          at: Int(random.next() % UInt64(parts.count + 1)))
      case 1:
        parts[Int(random.next() % UInt64(parts.count))] += ["..", ".", "x", "\u{1}"][Int(random.next() % 4)]
      case 2: parts.insert("", at: 0)
      default: parts[Int(random.next() % UInt64(parts.count))] = ".."
      }
      let path = parts.joined(separator: "/")
      XCTAssertThrowsError(
        try BackupManifest(text: Array("1 - \(valid[0])\n77 - \(path)\n".utf8), source: "REMOTE/manifest"),
        "seed \(seed), round \(round): \(path.debugDescription)"
      ) {
        XCTAssertTrue("\($0)".hasPrefix("'REMOTE/manifest': line 2 "), "\($0)")
      }
    }
    XCTAssertThrowsError(
      try BackupManifest(
        text: Array("77 - \(tag)/Photo/../../../\(tag)/key\n".utf8), source: "REMOTE/manifest")
    ) {
      XCTAssertEqual("\($0)", "'REMOTE/manifest': line 1 names no file of a vault")
    }
  }

  func testAStampReadsBackAndCountsItsGrace() {
    var random = SeededGenerator(seed: seed)
    for _ in 0..<500 {
      let seconds = Int(random.next() % 4_102_444_800)
      let stamp = RemovalStamp(seconds: seconds)
      XCTAssertEqual(RemovalStamp(name: stamp.name), stamp, "seed \(seed): \(stamp.name)")
      XCTAssertEqual(stamp.expiry(afterDays: 30).timeIntervalSince1970, Double(seconds + 30 * 86_400))
    }
    XCTAssertEqual(RemovalStamp(seconds: 1_798_502_400).name, "20261229T000000Z")
    for name in ["20261329T000000Z", "2026122T0000000Z", "20261229T000000", "20261229t000000Z", "x"] {
      XCTAssertNil(RemovalStamp(name: name), name)
    }
  }

  func testARestoreBringsBlobsThenTheJournalAndKeysThenTheHeader() {
    let tag = String(repeating: "a", count: 32)
    let id = String(repeating: "b", count: 32)
    let phases = RestoreGroup.phases([
      "vault.json", "\(tag)/key", "\(tag)/Journal/s-\(id)", "\(tag)/Photo/\(id)", "\(tag)/Thumb/\(id)",
    ])
    XCTAssertEqual(
      phases.map(\.paths),
      [
        ["\(tag)/Photo/\(id)", "\(tag)/Thumb/\(id)"], ["\(tag)/Journal/s-\(id)", "\(tag)/key"],
        ["vault.json"],
      ])
    XCTAssertEqual(phases.map(\.newestFirst), [false, true, false])
  }
}
