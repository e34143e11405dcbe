import Foundation
import XCTest

@testable import VaultCore

/// The checking phase of verify and repair, spread over workers: same findings in the
/// same order as one worker, and an interruption stops it in the photos' order.
final class SpaceVerifierTests: XCTestCase {
  var folder = ""
  var space: Space!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    space = try vault.unlock(password: password("first"), access: .write)
    let names = [
      "photo.jpg", "gray.png", "rgba.png", "progressive.jpg", "palette.png", "gray.jpg", "interlaced.png",
      "flat-teal.png",
    ]
    try PhotoImporter().importFiles(names.map { fixturesPath + "/" + $0 }, into: space) { _, _ in }
    XCTAssertEqual(space.entries.count, names.count)
  }

  func testManyWorkersFindWhatOneFindsInTheSameOrder() throws {
    let records = space.entries.map(\.record)
    for record in [records[1], records[4]] {
      var bytes = try fileBytes(space.photoPath(record.id))
      bytes[bytes.count - 20] ^= 1
      try writeBytes(bytes, to: space.photoPath(record.id))
    }
    unlink(space.thumbPath(records[6].id))
    for depth in [VerifyDepth.full, .quick] {
      var progress: [Int] = []
      let serial = SpaceVerifier(space: space, parallelism: 1).verify(depth: depth)
      let parallel = SpaceVerifier(space: space, parallelism: 4).verify(depth: depth) { done, total in
        XCTAssertEqual(total, records.count)
        progress.append(done)
      }
      XCTAssertEqual(parallel, serial, "\(depth)")
      XCTAssertEqual(progress, Array(1...records.count), "\(depth)")
      // The fixtures fit in one chunk: a quick check reads all of them too.
      XCTAssertEqual(serial.filter(\.isProblem).count, 3, "\(serial)")
    }
  }

  func testAnInterruptionWhileCheckingStopsAfterThePhotosInOrderAndRepairsNothing() throws {
    unlink(space.thumbPath(space.entries[5].record.id))
    let before = try FileManager.default.subpathsOfDirectory(atPath: space.directory).sorted()
    let interruption = Interruption()
    let summary = try SpaceVerifier(space: space, parallelism: 4).repair(
      progress: { done, _ in
        if done == 3 { interruption.request() }
      }, interruption: interruption)
    XCTAssertEqual(summary.interruption, .checking(done: 3, total: space.entries.count))
    XCTAssertEqual(summary.thumbnailsRemade, [])
    XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: space.directory).sorted(), before)
    XCTAssertEqual(SpaceVerifier(space: space).verify().filter(\.isProblem).count, 1)
  }
}
