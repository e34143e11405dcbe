// Terminal rules, in one place:
// - Results go to stdout; every message goes to stderr as `error:`, `warning:` or `hint:`.
// - Prompts (passwords, confirmations) read from and write to /dev/tty whenever the
//   process has a controlling terminal, even when stdin is a pipe; without one, vault
//   never waits for input.
// - Text that came from a file name or a record never reaches the terminal raw: every
//   line goes through TerminalSafeText, which shows control characters escaped. Only
//   the grid's own graphics and colour sequences are written raw (`printRaw`).
// - A progress bar is drawn on stderr only when stderr is a terminal.
// - The full-screen viewer takes /dev/tty over (FullScreenTerminal: raw mode, alternate
//   screen, its own signal handlers) only when stdin and stdout are both terminals, and
//   gives it back as it was on every way out; pixels reach the terminal only inside escape
//   codes (kitty's direct transmission), never through a file.
import Foundation
import Synchronization
import VaultCore

public enum Terminal {
  public static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
  public static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
  public static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

  /// The width to lay out for: the terminal's, else `COLUMNS`, else 80.
  public static var columns: Int {
    if let width = width(of: STDOUT_FILENO) { return width }
    // Bounded like a terminal's own width (16 bits), so that layouts never overflow.
    if let text = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(text), value > 0 {
      return min(value, Int(UInt16.max))
    }
    return 80
  }

  /// The height to lay out for: the terminal's, else `LINES`, else nil.
  public static var rows: Int? {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 { return Int(size.ws_row) }
    if let text = ProcessInfo.processInfo.environment["LINES"], let value = Int(text), value > 0 {
      return value
    }
    return nil
  }

  /// The width of the terminal stderr draws on (the progress bar's), else 80.
  public static var stderrColumns: Int { width(of: STDERR_FILENO) ?? 80 }

  /// The width in columns of the terminal `descriptor` writes to, if it is one.
  private static func width(of descriptor: Int32) -> Int? {
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// The size in pixels of one character cell, from the window size of the terminal stdout
  /// writes to, when it has pixels (else `TerminalProbe` asks the terminal).
  public static func windowCellSize() -> PixelSize? {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0,
      size.ws_xpixel >= size.ws_col, size.ws_ypixel >= size.ws_row
    else { return nil }
    return PixelSize(
      width: Int(size.ws_xpixel) / Int(size.ws_col), height: Int(size.ws_ypixel) / Int(size.ws_row))
  }

  /// What a prompt got from the terminal.
  public enum Answer {
    /// A line, without its line ending; the caller wipes it.
    case line([UInt8])
    /// Ctrl-D (end of input) before anything was typed.
    case endOfInput
  }

  /// Reads a line from the controlling terminal with echo off, even when stdin is a pipe
  /// (as ssh, gpg and age do). Returns nil when the process has no controlling terminal.
  public static func readSecret(prompt: String) -> Answer? {
    guard let tty = ControllingTerminal() else { return nil }
    return tty.withLocalModesCleared(tcflag_t(ECHO), flush: true) {
      tty.write(prompt)
      defer { tty.write("\n") }
      return tty.readLine()
    }
  }

  /// Asks a yes/no question on the controlling terminal, after `details` (lines that say
  /// what it is about); anything but y or yes is no. Returns nil when the process has no
  /// controlling terminal.
  public static func confirm(_ question: String, details: [String] = []) -> Bool? {
    guard let tty = ControllingTerminal() else { return nil }
    for line in details { tty.write(TerminalSafeText.escaped(line) + "\n") }
    tty.write(TerminalSafeText.escaped(question) + " [y/N] ")
    guard case .line(var answer) = tty.readLine() else { return false }
    defer { answer.wipe() }
    let text = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
    return text == "y" || text == "yes"
  }
}

/// The process's controlling terminal (`/dev/tty`), open for a prompt or a query; it is
/// closed when released.
public final class ControllingTerminal {
  public let descriptor: Int32

  /// Opens `/dev/tty`; nil when the process has no controlling terminal.
  public init?() {
    descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    if descriptor < 0 { return nil }
  }

  deinit {
    close(descriptor)
  }

  public func write(_ text: String) {
    Array(text.utf8).withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        offset += written
      }
    }
  }

  /// Runs `body` with the local modes `cleared` (e.g. ECHO) turned off, and restores the
  /// terminal's settings afterwards, whatever `body` does.
  public func withLocalModesCleared<Result>(_ cleared: tcflag_t, flush: Bool, _ body: () throws -> Result)
    rethrows
    -> Result
  {
    var saved = termios()
    guard tcgetattr(descriptor, &saved) == 0 else { return try body() }
    var changed = saved
    changed.c_lflag &= ~cleared
    let previousActions = TerminalRestore.arm(descriptor: descriptor, settings: saved)
    tcsetattr(descriptor, flush ? TCSAFLUSH : TCSANOW, &changed)
    defer {
      tcsetattr(descriptor, flush ? TCSAFLUSH : TCSANOW, &saved)
      TerminalRestore.disarm(previousActions)
    }
    return try body()
  }

  /// Reads one line, byte by byte so that nothing after it is consumed.
  public func readLine() -> Terminal.Answer {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = read(descriptor, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      if count <= 0 {
        if line.isEmpty { return .endOfInput }
        break
      }
      if byte == 0x0A { break }
      line.append(byte)
    }
    if line.last == 0x0D { line.removeLast() }
    return .line(line)
  }
}

/// Terminal settings to put back when a signal (Ctrl-C at a password prompt, say) ends the
/// process while they are changed: without this, echo would stay off in the shell. What
/// the handler reads is an atomic and `HandlerMemory`, written before it is installed.
private enum TerminalRestore {
  static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
  static let descriptor = Atomic<Int32>(-1)
  static let settings = HandlerMemory(repeating: termios(), count: 1)

  /// Async-signal-safe: tcsetattr and write, then the signal's default action.
  static let handler: @convention(c) (Int32) -> Void = { signal in
    let terminal = TerminalRestore.descriptor.load(ordering: .sequentiallyConsistent)
    if terminal >= 0 {
      tcsetattr(terminal, TCSANOW, TerminalRestore.settings.pointer())
      var newline: UInt8 = 0x0A
      _ = write(terminal, &newline, 1)
    }
    ProcessSignals.takeDefault(signal)
    raise(signal)
  }

  /// Remembers `settings` and catches the signals; returns the actions they had.
  static func arm(descriptor: Int32, settings: termios) -> [sigaction] {
    self.settings[0] = settings
    self.descriptor.store(descriptor, ordering: .sequentiallyConsistent)
    return signals.map { signal in
      var previous = sigaction()
      ProcessSignals.install(handler, for: signal, flags: 0, previous: &previous)
      return previous
    }
  }

  static func disarm(_ previous: [sigaction]) {
    for (signal, action) in zip(signals, previous) {
      withUnsafePointer(to: action) { ProcessSignals.putBack(signal, $0) }
    }
    descriptor.store(-1, ordering: .sequentiallyConsistent)
  }
}
