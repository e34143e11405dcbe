import Foundation
import XCTest

@testable import VaultCore

/// `vault show` inside tmux whose `tmux display -p` misbehaves (a fake `tmux` first in
/// PATH, asked in a real tmux pane): an answer no pane has, or none at all. Either way the
/// photo is drawn in symbols, with one line saying why, and vault ends normally.
final class TmuxAnswerTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    let photo = folder + "/photo.jpg"
    let pixels = [UInt8](repeating: 0x80, count: 64 * 48 * 3)
    let jpeg = try JPEGEncoder.encode(RGBImage(width: 64, height: 48, pixels: pixels), quality: 85)
    XCTAssertTrue(FileManager.default.createFile(atPath: photo, contents: Data(jpeg)))
    XCTAssertEqual(try vault.run(["add", photo]).status, 0)
  }

  /// Runs `vault show 1 --mode kitty` in a tmux pane whose `tmux` is a script running
  /// `fakeTmux`, and returns the screen once it has ended, with its exit status.
  func showThroughFakeTmux(_ fakeTmux: String) throws -> String {
    let bin = folder + "/fake-bin"
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let script = bin + "/tmux"
    try ("#!/bin/sh\n" + fakeTmux + "\n").write(toFile: script, atomically: true, encoding: .utf8)
    XCTAssertEqual(chmod(script, 0o755), 0)
    let session = try TmuxSession(
      "PATH=\(bin):$PATH \(VaultRunner.binary) show 1 --mode kitty; echo \"exit status $?\"", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color"])
    return try session.waitUntilFinished()
  }

  /// A pane whose top row is Int.max: vault trapped on the sum (SIGILL, status 132).
  func testAnAnswerNoPaneHasDrawsSymbols() throws {
    let screen = try showThroughFakeTmux("echo '1|9223372036854775807|0|on|top|xterm-kitty'")
    XCTAssertTrue(screen.contains("exit status 0"), screen)
    XCTAssertTrue(screen.contains("drawn in symbols: tmux's answer on where vault's pane is"), screen)
    XCTAssertTrue(screen.contains("1 photo.jpg  64×48"), screen)
  }

  /// A tmux that never answers: vault held the terminal (and the key) for as long as it
  /// waited; now it stops it and goes on. Only the harness's hang limit bounds the wait.
  func testATmuxThatNeverAnswersIsStopped() throws {
    let screen = try showThroughFakeTmux("sleep 600")
    XCTAssertTrue(screen.contains("exit status 0"), screen)
    XCTAssertTrue(screen.contains("drawn in symbols: tmux did not say"), screen)
    XCTAssertTrue(screen.contains("1 photo.jpg  64×48"), screen)
  }
}
