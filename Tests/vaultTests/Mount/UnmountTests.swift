import Foundation
import VaultTestSupport
import XCTest

/// `vault unmount` takes down only a vault mount that is on top of its folder: with another
/// file system mounted over it (root can), it refuses, and unmounts once that is gone.
final class UnmountTests: XCTestCase {
  func testAnotherMountOnTopOfAVaultMountIsNotTakenDown() throws {
    try MountTests.requireFuse()
    try require(getuid() == 0, "stacking a tmpfs on the mount needs root")
    let (vault, mountPoint) = try MountTests.vaultAndMountPoint(for: self)
    addTeardownBlock { _ = try? MountTests.runTool("/usr/bin/umount", ["-l", mountPoint]) }
    XCTAssertEqual(try vault.run(["mount", mountPoint, "--background"]).status, 0)
    XCTAssertEqual(try MountTests.runTool("/usr/bin/mount", ["-t", "tmpfs", "none", mountPoint]), 0)
    let refused = try vault.run(["unmount", mountPoint])
    XCTAssertEqual(refused.status, 1, refused.stderr)
    XCTAssertTrue(refused.stderr.contains("not a vault mount"), refused.stderr)
    XCTAssertEqual(try MountTests.runTool("/usr/bin/umount", [mountPoint]), 0, "the tmpfs was taken down")
    let unmounted = try vault.run(["unmount", mountPoint])
    XCTAssertEqual(unmounted.status, 0, unmounted.stderr)
    XCTAssertFalse(MountTests.isMounted(mountPoint))
  }

  func testMountingOnAVaultMountSaysOneIsThere() throws {
    try MountTests.requireFuse()
    let (vault, mountPoint) = try MountTests.vaultAndMountPoint(for: self)
    XCTAssertEqual(try vault.run(["mount", mountPoint, "--background"]).status, 0)
    let again = try vault.run(["mount", mountPoint, "--background"])
    XCTAssertEqual(again.status, 1, again.stderr)
    XCTAssertEqual(
      again.stderr,
      "error: '\(mountPoint)': a vault mount is here already: end it with 'vault unmount \(mountPoint)' first\n"
    )
    XCTAssertEqual(try vault.run(["unmount", mountPoint]).status, 0)
  }
}
