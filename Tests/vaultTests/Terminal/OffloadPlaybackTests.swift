import Foundation
import VaultTerminal
import VaultTestSupport
import XCTest

/// `vault view` on a real terminal (tmux), in symbols, with the video's original offloaded:
/// it plays and seeks, read from the remote by range; with the remote gone, the viewer
/// names it where the picture would be, and goes on.
final class OffloadPlaybackTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    try requireRclone()
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    try TestVideos.countingMP4(folder + "/clip.mp4", seconds: 12)
    XCTAssertEqual(try vault.run(["add", folder + "/clip.mp4"]).status, 0)
    let offloaded = try vault.run(
      ["offload", "--videos", "--to", folder + "/remote"], environment: ["RCLONE_CONFIG": "/nonexistent"])
    XCTAssertEqual(offloaded.status, 0, offloaded.stderr)
  }

  func viewer() throws -> TmuxSession {
    try TmuxSession(
      "\(VaultRunner.binary) view --mode symbols 1; echo \"exit status $?\"", in: folder,
      environment: [
        "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color",
        "COLORTERM": "truecolor", "RCLONE_CONFIG": "/nonexistent",
      ], width: 100, height: 40)
  }

  func testAnOffloadedVideoPlaysAndSeeks() throws {
    let session = try viewer()
    try session.wait(until: "the video's still") { $0.contains("Enter: play") && !$0.contains("loading") }
    try session.send("Enter")
    try session.wait(until: "the time advances past 0:01") {
      (PlaybackTests.progress($0).map { $0.mark == "▶" && $0.seconds >= 1 }) ?? false
    }
    try session.type(" ")
    let screen = try session.wait(until: "paused") { PlaybackTests.progress($0)?.mark == "‖" }
    let paused = try XCTUnwrap(PlaybackTests.progress(screen)).seconds
    try session.send("Right")
    try session.wait(until: "10 s on") {
      (PlaybackTests.progress($0).map { $0.seconds >= paused + 9 }) ?? false
    }
    try session.type("q")
    try session.wait(until: "back to the still") {
      $0.contains("Enter: play") && PlaybackTests.progress($0) == nil
    }
    try session.type("q")
    XCTAssertTrue(try session.waitUntilFinished().contains("exit status 0"))
  }

  func testAGoneRemoteIsNamedWhereThePictureWouldBeAndTheViewerGoesOn() throws {
    try FileManager.default.removeItem(atPath: folder + "/remote")
    let session = try viewer()
    // Where the picture would be: the remote's path (long: wrapped) and what is not there.
    try session.wait(until: "the remote named") {
      $0.contains("/remote': current/") && $0.contains("not found")
    }
    try session.type("q")
    XCTAssertTrue(try session.waitUntilFinished().contains("exit status 0"))
  }
}
