import Foundation
import XCTest

@testable import VaultCore

/// The folder an export writes into: checked before anything is asked for, made private
/// (0700) with its parents, or a new dated one, numbered when the date's is taken.
final class ExportTargetTests: XCTestCase {
  var folder = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  func mode(_ path: String) -> mode_t {
    var info = stat()
    XCTAssertEqual(stat(path, &info), 0, path)
    return info.st_mode & 0o7777
  }

  func testCheckAcceptsAFolderItCanMakeAndMakesNothing() throws {
    try ExportTarget.check(folder + "/new/deeper")
    XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/new"))
    try ExportTarget.check(folder)
  }

  func testCheckAndMakeRefuseAFileInTheWay() throws {
    try writeBytes(Array("not a folder".utf8), to: folder + "/file")
    XCTAssertThrowsError(try ExportTarget.check(folder + "/file")) {
      XCTAssertEqual(
        $0 as? VaultError,
        .io(path: folder + "/file", reason: "not a folder, so the export folder cannot be made there"))
    }
    // Below a file, the path itself is named (stat says ENOTDIR, not ENOENT).
    XCTAssertThrowsError(try ExportTarget.check(folder + "/file/inside")) {
      XCTAssertEqual($0 as? VaultError, .posix(folder + "/file/inside", ENOTDIR))
    }
    XCTAssertThrowsError(try ExportTarget.make(folder + "/file")) {
      XCTAssertEqual($0 as? VaultError, .io(path: folder + "/file", reason: "not a folder"))
    }
    XCTAssertEqual(try fileBytes(folder + "/file"), Array("not a folder".utf8), "left as it was")
  }

  func testMakeMakesThePathAndItsParentsPrivateAndKeepsAnExistingFolder() throws {
    try ExportTarget.make(folder + "/a/b")
    XCTAssertEqual(mode(folder + "/a"), 0o700)
    XCTAssertEqual(mode(folder + "/a/b"), 0o700)
    try writeBytes([1], to: folder + "/a/b/kept")
    try ExportTarget.make(folder + "/a/b")
    XCTAssertEqual(try fileBytes(folder + "/a/b/kept"), [1])
  }

  func testADatedFolderIsNumberedWhenTheDatesIsTaken() throws {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    var parts = tm()
    var seconds = time_t(now.timeIntervalSince1970)
    localtime_r(&seconds, &parts)
    let day = String(
      format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    let first = try ExportTarget.makeDated(in: folder, now: now)
    let second = try ExportTarget.makeDated(in: folder, now: now)
    XCTAssertEqual(first, folder + "/vault-export-" + day)
    XCTAssertEqual(second, folder + "/vault-export-\(day) (1)")
    XCTAssertEqual(mode(second), 0o700)
  }
}
