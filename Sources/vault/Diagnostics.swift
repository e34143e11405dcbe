import Foundation
import Synchronization
import VaultCore
import VaultTerminal

/// Prints messages to stderr, erasing a progress bar first if one is showing.
enum Diagnostics {
  /// Whether a progress bar is drawn: messages come from any thread (the mount's
  /// problems come from FUSE's), and one of them erases it.
  private static let progressShowing = Atomic(false)

  static func error(_ message: String) { emit("error: " + message) }
  static func warning(_ message: String) { emit("warning: " + message) }
  static func hint(_ message: String) { emit("hint: " + message) }

  static func emit(_ line: String) {
    clearProgress()
    FileHandle.standardError.write(Data((TerminalSafeText.escaped(line) + "\n").utf8))
  }

  /// Draws `[#####-----] done/total` on stderr when stderr is a terminal.
  static func progress(done: Int, total: Int, label: String) {
    guard Terminal.stderrIsTerminal, total > 0 else { return }
    showProgress(ProgressLine.text(done: done, total: total, label: label, columns: Terminal.stderrColumns))
  }

  /// Draws a transfer's line (bytes, files, rate, time left) when stderr is a terminal.
  static func progress(_ transfer: RcloneProgress, label: String) {
    guard Terminal.stderrIsTerminal else { return }
    showProgress(TransferLine.text(transfer, label: label, columns: Terminal.stderrColumns))
  }

  /// Draws `line` (made to fit the terminal) in place of the last progress line.
  private static func showProgress(_ line: String) {
    FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
    progressShowing.store(true, ordering: .relaxed)
  }

  static func clearProgress() {
    guard progressShowing.exchange(false, ordering: .relaxed) else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }
}

/// Writes a line to stdout, control characters escaped, keeping any progress bar on
/// stderr out of its way.
func printLine(_ text: String) {
  printRaw(TerminalSafeText.escaped(text))
}

/// Writes a line to stdout as it is: only for sequences vault made itself (graphics,
/// colours) around text that is already escaped.
func printRaw(_ text: String) {
  Diagnostics.clearProgress()
  print(text)
  fflush(nil)  // every stream: Swift 6 does not let code read C's global `stdout`
}
