import Foundation
import VaultTestSupport
import XCTest

@testable import VaultTerminal

/// `tmux display -p` run for the pane: a fake `tmux` first in PATH answers, answers
/// nonsense, or never answers (it is killed and reaped; no test measures time).
final class TmuxPaneAskTests: XCTestCase {
  var folder = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  /// What `ask` makes of a `tmux` running `script` (sh), inside pane %1.
  func ask(_ script: String) throws -> Result<TmuxPane, TmuxSilence> {
    let tmux = folder + "/tmux"
    try ("#!/bin/sh\n" + script + "\n").write(toFile: tmux, atomically: true, encoding: .utf8)
    XCTAssertEqual(chmod(tmux, 0o755), 0)
    let path = folder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    return TmuxPane.ask(environment: ["TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%1", "PATH": path])
  }

  func testAnAnswerIsThePane() throws {
    XCTAssertEqual(
      try ask("echo '1|2|41|on|top|xterm-kitty'"),
      .success(TmuxPane(passthrough: true, top: 3, left: 41, outerTerminal: "xterm-kitty")))
  }

  func testNonsenseIsAnUnusableAnswer() throws {
    XCTAssertEqual(try ask("echo '1|9223372036854775807|0|on|top|xterm-kitty'"), .failure(.unusableAnswer))
    XCTAssertEqual(try ask("head -c 10000 /dev/zero"), .failure(.unusableAnswer))
  }

  func testAFailingOrMissingTmuxIsUnavailable() throws {
    XCTAssertEqual(try ask("exit 1"), .failure(.unavailable))
    XCTAssertEqual(TmuxPane.ask(environment: ["TMUX_PANE": "%1", "PATH": folder]), .failure(.unavailable))
  }

  /// A tmux whose own child never ends: the child is killed with it (they share a
  /// process group). It is reaped by whoever inherited it, in its own time: waited for.
  func testWhatAHungTmuxStartedIsKilledToo() throws {
    let pidFile = folder + "/child"
    XCTAssertEqual(try ask("sleep infinity & echo $! > '\(pidFile)'; wait"), .failure(.noAnswerInTime))
    let pid = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(
      in: .whitespacesAndNewlines)
    let deadline = Date().addingTimeInterval(120)
    var state = ""
    repeat {
      let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
      state = stat.split(separator: ")").last.map { String($0.dropFirst().prefix(1)) } ?? ""
      if state.isEmpty || state == "Z" { return }
      usleep(10_000)
    } while Date() < deadline
    XCTFail("the fake tmux's child \(pid) still runs (state \(state))")
  }

  /// A tmux that never answers, or answers and never ends: killed, and gone (reaped) when
  /// `ask` returns.
  func testATmuxThatNeverEndsIsKilled() throws {
    for script in ["exec sleep infinity", "echo '1|0|0|on|top|xterm'; exec sleep infinity"] {
      let pidFile = folder + "/pid"
      XCTAssertEqual(try ask("echo $$ > '\(pidFile)'; " + script), .failure(.noAnswerInTime), script)
      let pid = try XCTUnwrap(
        pid_t(
          String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
      XCTAssertEqual(kill(pid, 0), -1, "the fake tmux \(pid) still runs: \(script)")
      XCTAssertEqual(errno, ESRCH, script)
    }
  }
}
