// Terminal rules, in one place:
// - Results go to stdout; every message goes to stderr as `error:`, `warning:` or `hint:`.
// - Prompts (passwords, confirmations) read from and write to /dev/tty, and only when
//   stdin is a terminal; without one, vault never waits for input.
// - A progress bar is drawn on stderr only when stderr is a terminal.
import Foundation
import VaultCore

enum Terminal {
  static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
  static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
  static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

  /// The width to lay out for: the terminal's, else `COLUMNS`, else 80.
  static var columns: Int {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    if let text = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(text), value > 0 {
      return value
    }
    return 80
  }

  /// The size in pixels of one character cell: from the terminal's window size, else (with
  /// `query`) by asking the terminal (`CSI 16 t`, answered within 200 ms or not at all).
  static func characterPixelSize(query: Bool) -> (width: Int, height: Int)? {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0,
      size.ws_xpixel > 0, size.ws_ypixel > 0
    {
      return (Int(size.ws_xpixel) / Int(size.ws_col), Int(size.ws_ypixel) / Int(size.ws_row))
    }
    guard query, stdinIsTerminal, stdoutIsTerminal else { return nil }
    let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard tty >= 0 else { return nil }
    defer { close(tty) }
    var saved = termios()
    guard tcgetattr(tty, &saved) == 0 else { return nil }
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
    tcsetattr(tty, TCSANOW, &raw)
    defer { tcsetattr(tty, TCSANOW, &saved) }
    _ = "\u{1B}[16t".withCString { write(tty, $0, strlen($0)) }
    var reply: [UInt8] = []
    var poller = pollfd(fd: tty, events: Int16(POLLIN), revents: 0)
    while reply.count < 32, poll(&poller, 1, 200) > 0 {
      var byte: UInt8 = 0
      guard read(tty, &byte, 1) == 1 else { break }
      reply.append(byte)
      if byte == UInt8(ascii: "t") { break }
    }
    // The answer is ESC [ 6 ; height ; width t
    let text = String(decoding: reply, as: UTF8.self)
    guard text.hasPrefix("\u{1B}[6;"), text.hasSuffix("t") else { return nil }
    let numbers = text.dropFirst(4).dropLast().split(separator: ";").compactMap { Int($0) }
    guard numbers.count == 2, numbers[0] > 0, numbers[1] > 0 else { return nil }
    return (numbers[1], numbers[0])
  }

  /// Reads a line from the terminal with echo off. Returns nil without a terminal.
  static func readSecret(prompt: String) throws -> [UInt8]? {
    guard stdinIsTerminal else { return nil }
    let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
    guard tty >= 0 else { return nil }
    defer { close(tty) }
    var saved = termios()
    tcgetattr(tty, &saved)
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(tty, TCSAFLUSH, &quiet)
    defer {
      tcsetattr(tty, TCSAFLUSH, &saved)
      _ = "\n".withCString { write(tty, $0, 1) }
    }
    _ = prompt.withCString { write(tty, $0, strlen($0)) }
    return readLine(from: tty)
  }

  /// Asks a yes/no question on the terminal; anything but y or yes is no. Returns nil
  /// without a terminal.
  static func confirm(_ question: String) -> Bool? {
    guard stdinIsTerminal else { return nil }
    let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
    guard tty >= 0 else { return nil }
    defer { close(tty) }
    let prompt = question + " [y/N] "
    _ = prompt.withCString { write(tty, $0, strlen($0)) }
    guard var answer = readLine(from: tty) else { return false }
    defer { answer.wipe() }
    let text = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
    return text == "y" || text == "yes"
  }

  private static func readLine(from descriptor: Int32) -> [UInt8]? {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = read(descriptor, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { return line.isEmpty ? nil : line }
      if byte == 0x0A { break }
      line.append(byte)
    }
    if line.last == 0x0D { line.removeLast() }
    return line
  }
}

/// Prints messages to stderr, erasing a progress bar first if one is showing.
enum Diagnostics {
  nonisolated(unsafe) static var progressShowing = false

  static func error(_ message: String) { emit("error: " + message) }
  static func warning(_ message: String) { emit("warning: " + message) }
  static func hint(_ message: String) { emit("hint: " + message) }

  static func emit(_ line: String) {
    clearProgress()
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Draws `[#####-----] done/total` on stderr when stderr is a terminal.
  static func progress(done: Int, total: Int, label: String) {
    guard Terminal.stderrIsTerminal, total > 0 else { return }
    let width = 30
    let filled = width * done / total
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    let room = max(0, Terminal.columns - width - 20)
    let text = "\r\u{1B}[K[\(bar)] \(done)/\(total) " + DisplayWidth.truncate(label, to: room)
    FileHandle.standardError.write(Data(text.utf8))
    progressShowing = true
  }

  static func clearProgress() {
    guard progressShowing else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    progressShowing = false
  }
}

/// Writes a line to stdout, keeping any progress bar on stderr out of its way.
func printLine(_ text: String) {
  Diagnostics.clearProgress()
  print(text)
  fflush(stdout)
}
