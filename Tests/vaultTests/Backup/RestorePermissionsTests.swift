import Foundation
import XCTest

/// What rclone makes for vault (a restore's folders and files) is the owner's only, as
/// vault's own files are, whatever the user's umask.
final class RestorePermissionsTests: XCTestCase {
  func testARestoresFoldersAndFilesAreTheOwnersOnly() throws {
    let (folder, vault) = try VaultRunner.withOffloadFixtures(for: self)
    let environment = ["RCLONE_CONFIG": "/nonexistent"]
    let backedUp = try vault.run(["backup", folder + "/backup"], environment: environment)
    XCTAssertEqual(backedUp.status, 0, backedUp.stderr)
    let restored = try vault.run(
      ["restore", folder + "/backup", "--to", folder + "/out"], environment: environment)
    XCTAssertEqual(restored.status, 0, restored.stderr)
    let out = folder + "/out"
    let paths = try [""] + FileManager.default.subpathsOfDirectory(atPath: out).map { "/" + $0 }
    XCTAssertGreaterThan(paths.count, 5)
    for path in paths {
      var status = stat()
      XCTAssertEqual(lstat(out + path, &status), 0, path)
      XCTAssertEqual(
        status.st_mode & 0o077, 0, "out\(path) is mode \(String(status.st_mode & 0o777, radix: 8))")
    }
  }
}
