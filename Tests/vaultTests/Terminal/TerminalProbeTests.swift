import Foundation
import XCTest

/// `vault list --per-row` on a pseudo-terminal that answers the probe as `xterm -ti vt340`
/// does (recorded from xterm 379): sixel is chosen without --mode, every sixel image is
/// within the terminal's maximum, and a key typed during the probe is given back.
final class TerminalProbeTests: XCTestCase {
  static let hangLimit: TimeInterval = 120
  static let xtermAnswers =
    "\u{1B}[?1;0;1024S\u{1B}[?1;0;1024S\u{1B}[?2;0;1120;672S\u{1B}[?2;0;1000;1000S"
    + "\u{1B}P1$r0;38:2::1:2:3m\u{1B}\\\u{1B}[?63;1;2;4;6;9;15;16;22;28c"

  /// Runs `arguments` on a 160×48 pseudo-terminal of 7×14-pixel cells whose first
  /// answer (to the device attributes' `CSI c`) is `typed` then `answers`; returns all it
  /// wrote.
  func onTerminal(_ vault: VaultRunner, _ arguments: [String], typed: String, answers: String) throws
    -> String
  {
    var master: Int32 = 0
    var slave: Int32 = 0
    var window = winsize(ws_row: 48, ws_col: 160, ws_xpixel: 1120, ws_ypixel: 672)
    XCTAssertEqual(openpty(&master, &slave, nil, nil, &window), 0)
    defer { close(master) }
    let slavePath = String(cString: ttyname(slave))
    close(slave)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A session of its own (glibc's POSIX_SPAWN_SETSID, which Swift does not import), whose
    // controlling terminal is the pseudo-terminal: its /dev/tty.
    posix_spawnattr_setflags(&attributes, 0x80)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in [0, 1, 2] {
      posix_spawn_file_actions_addopen(&actions, descriptor, slavePath, O_RDWR, 0)
    }
    var environment = ProcessInfo.processInfo.environment
    for name in ["TMUX", "COLORTERM", "NO_COLOR", "VAULT_DIR", "VAULT_PASSWORD"] { environment[name] = nil }
    environment.merge(["TERM": "xterm", "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"]) { $1 }
    let argv = ([VaultRunner.binary] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    XCTAssertEqual(posix_spawn(&pid, VaultRunner.binary, &actions, &attributes, argv, envp), 0)
    var output: [UInt8] = []
    var answered = false
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(Self.hangLimit)
    while Date() < deadline {
      var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 1000) >= 0 else { break }
      if poller.revents & Int16(POLLIN) == 0 {
        if waitpid(pid, nil, WNOHANG) == pid {
          pid = 0
          break
        }
        continue
      }
      let count = read(master, &buffer, buffer.count)
      guard count > 0 else { break }
      output += buffer[0..<count]
      if !answered, String(decoding: output, as: UTF8.self).contains("\u{1B}[c") {
        answered = true
        let reply = Array((typed + answers).utf8)
        XCTAssertEqual(write(master, reply, reply.count), reply.count)
      }
    }
    if pid != 0 { waitpid(pid, nil, 0) }
    XCTAssertTrue(answered, "the terminal was never asked")
    return String(decoding: output, as: UTF8.self)
  }

  /// The widths of the sixel images in `text` (their raster attributes).
  func sixelWidths(_ text: String) -> [Int] {
    let pattern = try! NSRegularExpression(pattern: "\u{1B}P[0-9;]*q\"1;1;(\\d+);\\d+")
    return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
      Int(text[Range($0.range(at: 1), in: text)!])!
    }
  }

  func testXtermAsAVT340GetsSixelImagesItAccepts() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder)
    let photos = try FileManager.default.contentsOfDirectory(atPath: fixturesPath)
      .filter { $0.hasSuffix(".jpg") }.sorted().prefix(4)
    XCTAssertEqual(try vault.run(["add"] + photos.map { fixturesPath + "/" + $0 }).status, 0)
    let output = try onTerminal(
      vault, ["list", "--per-row", "4", "--count", "4"], typed: "k", answers: Self.xtermAnswers)
    let widths = sixelWidths(output)
    // 160 columns of 7 pixels are 1120: more than xterm's 1000, so two images.
    XCTAssertEqual(widths.count, 2, "not drawn in sixel, or in one image")
    for width in widths { XCTAssertLessThanOrEqual(width, 1000) }
    // The key typed while the terminal was asked is back in its input: echoed once the
    // probe gave the terminal its settings back. (Linux 6.2 may forbid TIOCSTI but to root.)
    let tiocsti = try? String(contentsOfFile: "/proc/sys/dev/tty/legacy_tiocsti", encoding: .utf8)
    guard tiocsti?.hasPrefix("0") != true || getuid() == 0 else { return }
    let probeEnd = try XCTUnwrap(output.range(of: "\u{1B}[c"))
    XCTAssertTrue(output[probeEnd.upperBound...].hasPrefix("k"), "the typed key was lost")
  }
}
