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
    // Format 1's index is JSON, where an id could be any string; format 2 stores ids as 16
    // bytes. Turned back into format 1 with a forged index.
    removeTree(space!.journalDirectory)
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

  /// Every file and folder under `path`, the folder itself included.
  func everything(under path: String) -> [String] {
    [path] + ((try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []).map { path + "/" + $0 }
  }

  func accessTime(_ path: String) -> timespec {
    var info = stat()
    XCTAssertEqual(lstat(path, &info), 0, path)
    return info.st_atim
  }

  /// Sets the access time of `path` ten days before its modification time: even a file
  /// system mounted `relatime` updates such an access time on the next read.
  func ageAccessTime(_ path: String) {
    var info = stat()
    XCTAssertEqual(lstat(path, &info), 0, path)
    var times = [
      timespec(tv_sec: info.st_mtim.tv_sec - 10 * 86400, tv_nsec: 0), info.st_mtim,
    ]
    XCTAssertEqual(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW), 0, path)
  }

  func testReadingASpaceChangesNoAccessTime() throws {
    // First, whether this file system shows reads in access times at all.
    let control = folder + "/control"
    try writeBytes([1, 2, 3], to: control)
    ageAccessTime(control)
    let before = accessTime(control)
    _ = try fileBytes(control)
    if accessTime(control).tv_sec == before.tv_sec {
      throw XCTSkip("this file system does not update access times (mounted noatime?)")
    }

    let paths = everything(under: vault.vault)
    XCTAssertGreaterThan(paths.count, 8)
    for arguments in [
      ["list"], ["list", "--json"], ["export", "1", "--to", folder + "/out"],
      ["export", "2", "--thumbs", "--to", folder + "/out"],
      ["verify"],
    ] {
      paths.forEach(ageAccessTime)
      let aged = paths.map(accessTime)
      let run = try vault.run(arguments)
      XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
      for (path, time) in zip(paths, aged) {
        let now = accessTime(path)
        XCTAssertTrue(
          now.tv_sec == time.tv_sec && now.tv_nsec == time.tv_nsec,
          "\(arguments) changed the access time of \(path)")
      }
    }
  }

  func testExportFoldersArePrivate() throws {
    for arguments in [["export", "1"], ["export", "1", "--to", folder + "/new/nested"]] {
      let run = try vault.run(arguments)
      XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
    }
    let dated = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
      $0.hasPrefix("vault-export-")
    }
    XCTAssertEqual(dated.count, 1)
    for path in [folder + "/" + dated[0], folder + "/new", folder + "/new/nested"] {
      var info = stat()
      XCTAssertEqual(stat(path, &info), 0, path)
      XCTAssertEqual(
        info.st_mode & 0o777, 0o700, "\(path) has mode \(String(info.st_mode & 0o777, radix: 8))")
    }
  }
}
