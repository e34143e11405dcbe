import Foundation
import XCTest

@testable import VaultCore

/// Attacks through the built binary: forged vault contents, and what an observer of the
/// vault folder can learn.
final class SecurityTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    let add = try vault.run(["add", fixturesPath + "/photo.jpg", fixturesPath + "/gray.png"])
    XCTAssertEqual(add.status, 0, add.stderr)
  }

  /// The space of the default password, opened in this process to forge its files.
  func openSpace() throws -> Space {
    try Vault.open(at: vault.vault).unlock(
      password: try Password(utf8: Array("correct horse".utf8)), access: .write)
  }

  func testAnIndexIDThatIsAPathIsReportedAndNothingOutsideTheVaultIsDeleted() throws {
    let victim = folder + "/victim"
    try writeBytes([1, 2, 3], to: victim)
    var space: Space? = try openSpace()
    let indexPath = space!.indexPath
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = String(decoding: try encoder.encode(SpaceIndex(photos: space!.entries)), as: UTF8.self)
      .replacingOccurrences(
        of: "\(space!.entries[0].record.id)", with: String(repeating: "../", count: 12) + victim.dropFirst())
    let file = try TemporaryFile(in: space!.directory)
    let writer = try BlobWriter(
      kind: .index, key: space!.master.blobKey(kind: .index, id: .index), output: file)
    try writer.write(Array(json.utf8))
    try writer.finish()
    try file.replace(indexPath)
    space = nil

    let delete = try vault.run(["delete", "1", "--yes"])
    XCTAssertNotEqual(delete.status, 0)
    XCTAssertTrue(
      delete.stderr.contains("the index '\(indexPath)' is damaged: entry 1 has a malformed photo id"),
      delete.stderr)
    XCTAssertTrue(FileManager.default.fileExists(atPath: victim), "delete removed a file outside the vault")
    for arguments in [["list"], ["export", "1", "--to", folder + "/out"], ["select", "1"]] {
      let run = try vault.run(arguments)
      XCTAssertNotEqual(run.status, 0, "\(arguments)")
      XCTAssertTrue(run.stderr.contains("malformed photo id"), "\(arguments): \(run.stderr)")
    }
    let repair = try vault.run(["verify", "--repair"])
    XCTAssertEqual(repair.status, 0, repair.stdout + repair.stderr)
    XCTAssertEqual(try vault.run(["verify"]).status, 0)
    XCTAssertEqual(try fileBytes(victim), [1, 2, 3], "the victim is untouched")
  }
}
