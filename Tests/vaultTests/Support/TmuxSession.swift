import Foundation
import VaultTerminal
import XCTest

/// A command running on a real terminal: a detached tmux session of its own, killed when
/// released. Screens are read with capture-pane; keys are typed with send-keys.
final class TmuxSession {
  static let tmux = "/usr/bin/tmux"
  /// How long a wait for the screen may take before the command counts as hung: a limit
  /// only a hang reaches, however loaded the machine.
  static let hangLimit: TimeInterval = 120

  let socket = "vault-test-\(UUID().uuidString)"
  private let folder: String

  /// Starts `command` in `folder`, on a `width`×`height` terminal, with `environment`
  /// (and without NO_COLOR, COLORTERM or VAULT_PASSWORD unless given). `finishedMark` is
  /// printed when it ends.
  init(
    _ command: String, in folder: String, environment: [String: String], width: Int = 100, height: Int = 50
  ) throws {
    try requireTool(Self.tmux)
    self.folder = folder
    let exports = environment.map { "export \($0.key)='\($0.value)'; " }.sorted().joined()
    let script =
      "unset NO_COLOR COLORTERM VAULT_PASSWORD; \(exports)cd '\(folder)' && \(command); echo '\(Self.finishedMark.prefix(8))''\(Self.finishedMark.dropFirst(8))'; sleep 600"
    XCTAssertEqual(
      try Self.runTool(
        ["-L", socket, "new-session", "-d", "-x", "\(width)", "-y", "\(height)", script], output: "/dev/null"),
      0)
  }

  deinit {
    _ = try? Self.runTool(["-L", socket, "kill-server"], output: "/dev/null")
  }

  /// Printed when the command has ended: a text no command prints (a prompt's "undone"
  /// must not pass for "done"), typed split so that the command line does not show it.
  static let finishedMark = "[tmux-session-finished]"

  /// Waits until the command has ended, and returns the screen.
  @discardableResult
  func waitUntilFinished(file: StaticString = #filePath, line: UInt = #line) throws -> String {
    try wait(for: Self.finishedMark, file: file, line: line)
  }

  /// The screen as text; with `escapes`, with its colour and graphics sequences.
  func screen(escapes: Bool = false) throws -> String {
    let output = folder + "/.capture-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: output) }
    _ = try Self.runTool(
      ["-L", socket, "capture-pane", "-p", "-J"] + (escapes ? ["-e"] : []), output: output)
    return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
  }

  /// Waits until the screen shows `text`, and returns the screen.
  @discardableResult
  func wait(for text: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    try wait(until: "'\(text)' appears", file: file, line: line) { $0.contains(text) }
  }

  /// Waits until the screen (with its colours, if `escapes`) satisfies `condition`
  /// (described by `what` if it never does), and returns the screen.
  @discardableResult
  func wait(
    until what: String, escapes: Bool = false, file: StaticString = #filePath, line: UInt = #line,
    _ condition: (String) -> Bool
  ) throws -> String {
    let deadline = Date().addingTimeInterval(Self.hangLimit)
    var shown = ""
    while Date() < deadline {
      shown = try screen(escapes: escapes)
      if condition(shown) { return shown }
      usleep(50_000)
    }
    XCTFail("never on the screen: \(what):\n\(shown)", file: file, line: line)
    return shown
  }

  /// Types keys, as tmux's send-keys names them (`Enter`, `C-d`), or literal text.
  func send(_ keys: String...) throws {
    _ = try Self.runTool(["-L", socket, "send-keys"] + keys, output: "/dev/null")
  }

  func type(_ text: String) throws {
    _ = try Self.runTool(["-L", socket, "send-keys", "-l", text], output: "/dev/null")
  }

  /// Sends a key as a person types an answer to `vault view`'s questions: after a pause
  /// longer than the viewer's `FullScreenTerminal.typedGap`, so that it is read on its own
  /// however fast the machine answered the key before (a burst is taken for a paste).
  func sendOnItsOwn(_ key: String) throws {
    usleep(useconds_t(FullScreenTerminal.typedGap * 3 * 1_000_000))
    try send(key)
  }

  // tmux is started with posix_spawn: a tmux server started through Foundation's Process
  // (as of Swift 6.3 on Linux) stops answering its clients.
  static func runTool(_ arguments: [String], output: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([tmux] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, tmux, &actions, nil, argv, environ) == 0 else {
      throw TestFailure("cannot start \(tmux)")
    }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return (status >> 8) & 0xFF
  }
}
