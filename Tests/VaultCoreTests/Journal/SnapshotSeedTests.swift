import Foundation
import XCTest

@testable import VaultCore

/// The snapshot fuzz target's seeds (Fuzz/seeds/snapshot) replayed in the suite, so that an
/// input the fuzzer once crashed on keeps being checked without a fuzzer build: each seed's
/// snapshots (each after a 2-byte big-endian length, as the target frames them) are applied
/// whole and a few bytes at a time, as a big snapshot is while it is decrypted, and plain
/// decoding must take exactly what the space takes.
final class SnapshotSeedTests: XCTestCase {
  static let seeds = projectPath + "/Fuzz/seeds/snapshot"

  /// The snapshots framed in `bytes`, as the fuzz target reads them (at most three).
  private func framedSnapshots(_ bytes: [UInt8]) -> [[UInt8]] {
    var (snapshots, offset) = ([[UInt8]](), 0)
    while offset + 2 <= bytes.count, snapshots.count < 3 {
      let end = min(bytes.count, offset + 2 + (Int(bytes[offset]) << 8 | Int(bytes[offset + 1])))
      snapshots.append(Array(bytes[offset + 2..<end]))
      offset = end
    }
    return snapshots
  }

  /// "applied", or the error that refused `plaintext`.
  private func outcome(into state: inout SpaceState, _ plaintext: [UInt8], inSteps step: Int? = nil) -> String
  {
    do {
      try state.applySnapshot(try SnapshotBytes(plaintext), inSteps: step)
      return "applied"
    } catch {
      return "\(error)"
    }
  }

  func testEverySeedAppliesAlikeWholeAndInStepsAndAsPlainDecodingDoes() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.seeds).sorted()
    XCTAssertTrue(names.contains("cut-in-a-name-length"), "\(names)")
    for name in names {
      var (whole, inSteps, decoded) = (SpaceState(), SpaceState(), SpaceState())
      for plaintext in framedSnapshots(try fileBytes(Self.seeds + "/" + name)) {
        var candidate = decoded
        let length = plaintext.withUnsafeBytes { buffer in
          try? JournalEntry.decodeAll(buffer) { candidate.apply($0) }
        }
        let sound = length.map { plaintext.count == Padme.paddedLength($0) } ?? false
        if sound { decoded = candidate }
        // The step the fuzz target takes from the snapshot's first byte.
        let step = 1 + Int(plaintext.first ?? 0) % 64
        let here = outcome(into: &whole, plaintext)
        XCTAssertEqual(here, outcome(into: &inSteps, plaintext, inSteps: step), name)
        XCTAssertEqual(
          here == "applied", sound, "\(name): plain decoding took it: \(sound); the space: \(here)")
      }
      XCTAssertEqual(whole.entries(), decoded.entries(), name)
      XCTAssertEqual(inSteps.entries(), decoded.entries(), name)
      XCTAssertEqual(whole.compacted(), decoded.compacted(), name)
    }
  }

  /// The crash file a merge left at the top of the repository: one snapshot cut inside an
  /// `added` entry's name length. It is refused, whole and in steps, and adds nothing.
  func testASnapshotCutInsideAnEntryIsRefusedWholeAndInSteps() throws {
    let snapshots = framedSnapshots(try fileBytes(Self.seeds + "/cut-in-a-name-length"))
    XCTAssertEqual(snapshots.count, 1)
    var (whole, inSteps) = (SpaceState(), SpaceState())
    let here = outcome(into: &whole, snapshots[0])
    XCTAssertNotEqual(here, "applied")
    XCTAssertEqual(outcome(into: &inSteps, snapshots[0], inSteps: 2), here)
    XCTAssertEqual(whole.entries().count, 0)
    XCTAssertEqual(inSteps.entries().count, 0)
  }
}
