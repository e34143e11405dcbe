import Foundation
import Synchronization
import VaultTestSupport
import XCTest

/// What a mount shows while the space it shows does not read whole (a sync engine moving
/// its files, a password changed on another copy): the photos it showed, with a warning,
/// never an empty space; once the space reads whole again, its changes show.
final class MountReloadTests: XCTestCase {
  func testAMountKeepsItsPhotosWhileTheJournalIsGoneAndShowsChangesOnceItIsBack() throws {
    try MountTests.requireFuse()
    let (vault, mountPoint) = try MountTests.vaultAndMountPoint(for: self)
    let folder = (mountPoint as NSString).deletingLastPathComponent
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png", fixturesPath + "/photo.jpg"]).status, 0)
    let mount = try vault.start(["mount", mountPoint], errorsInOutput: true)
    XCTAssertNotNil(mount.waitForLine { $0.contains("mounted") }, "vault mount did not start")
    let photos = { Set((try? FileManager.default.contentsOfDirectory(atPath: mountPoint + "/Photos")) ?? []) }
    XCTAssertEqual(photos(), ["gray.png", "photo.jpg"])

    let journal = try vault.spaceFolder() + "/Journal"
    try FileManager.default.moveItem(atPath: journal, toPath: folder + "/Journal-away")
    // Should the warning never come, the mount is stopped after a minute, which ends its
    // output and the wait, and the test fails rather than hangs.
    let warned = Mutex(false)
    let mountProcess = mount.process.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
      if !warned.withLock({ $0 }) { kill(mountProcess, SIGTERM) }
    }
    XCTAssertNotNil(mount.waitForLine { $0.contains("does not read whole now") }, "no warning")
    warned.withLock { $0 = true }
    XCTAssertEqual(photos(), ["gray.png", "photo.jpg"], "the mount emptied")
    XCTAssertEqual(
      FileManager.default.contents(atPath: mountPoint + "/Photos/gray.png"),
      FileManager.default.contents(atPath: fixturesPath + "/gray.png"))

    try FileManager.default.moveItem(atPath: folder + "/Journal-away", toPath: journal)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/rgba.png"]).status, 0)
    let deadline = Date().addingTimeInterval(30)
    while !photos().contains("rgba.png") && Date() < deadline { usleep(50_000) }
    XCTAssertEqual(photos(), ["gray.png", "photo.jpg", "rgba.png"])
    mount.send(SIGTERM)
    XCTAssertEqual(try mount.finish().status, 0)
  }
}
