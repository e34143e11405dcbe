import Foundation
import XCTest

extension VaultRunner {
  /// The fixtures the offload tests import.
  static let offloadFixtures = ["photo.jpg", "rgba.png", "gray.png"]

  /// A vault in a new temporary folder of `test` holding `offloadFixtures`, with rclone
  /// required (a failure under CI).
  static func withOffloadFixtures(for test: XCTestCase, file: StaticString = #filePath, line: UInt = #line)
    throws -> (folder: String, vault: VaultRunner)
  {
    try requireRclone()
    let folder = try makeTemporaryFolder(test)
    let vault = try VaultRunner.initialized(in: folder)
    let added = try vault.run(["add"] + offloadFixtures.map { fixturesPath + "/" + $0 })
    XCTAssertEqual(added.status, 0, added.stderr, file: file, line: line)
    return (folder, vault)
  }
}
