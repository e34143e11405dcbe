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
    // rclone itself runs under umask 077: what it writes is private while it writes it
    // (vault's chmod after a restore comes only once rclone is done).
    let rclone = folder + "/rclone-umask"
    try """
    #!/bin/sh
    umask >> '\(folder)/umask.log'
    exec /usr/bin/rclone "$@"
    """.write(toFile: rclone, atomically: true, encoding: .utf8)
    chmod(rclone, 0o755)
    let restored = try vault.run(
      ["restore", folder + "/backup", "--to", folder + "/out"],
      environment: environment.merging(["VAULT_RCLONE": rclone]) { $1 })
    XCTAssertEqual(restored.status, 0, restored.stderr)
    let masks = try String(contentsOfFile: folder + "/umask.log", encoding: .utf8).split(separator: "\n")
    XCTAssertFalse(masks.isEmpty)
    XCTAssertEqual(Set(masks), ["0077"])
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
