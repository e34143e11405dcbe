import Foundation
import VaultCore

/// Asks the terminal what it can do, in one round trip: the queries are written together,
/// ending with the primary device attributes (`CSI c`), which every terminal answers, and
/// after the others: once they come, a query not answered yet is one the terminal does not
/// know. Nothing waits a fixed time but for a terminal that answers nothing.
public enum TerminalProbe {
  /// The id of kitty's graphics query (any small number; the answer repeats it).
  static let kittyQueryID = 31
  /// The foreground set to see whether the terminal keeps it as RGB: a colour no palette
  /// has, so a terminal that maps it to its palette answers something else.
  static let probeColour = (red: 1, green: 2, blue: 3)
  /// How long to wait for a terminal that answers nothing, not even `CSI c`; an ssh link
  /// far away answers within it.
  static let timeout = 1.0
  /// The most input read: answers are far shorter.
  static let longestInput = 4096

  /// The queries, in the order the reader expects their answers. `kitty`: whether to ask
  /// kitty's graphics query (an APC, which the Linux console prints as text).
  static func queries(kitty: Bool) -> String {
    let colour = probeColour
    var text = "\u{1B}[16t"  // cell size
    text += "\u{1B}[?1;1;0S\u{1B}[?1;4;0S"  // sixel colour registers: in use, maximum
    text += "\u{1B}[?2;1;0S\u{1B}[?2;4;0S"  // sixel geometry: now, maximum
    if kitty { text += "\u{1B}_Gi=\(kittyQueryID),s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\" }
    // A direct RGB foreground, read back (DECRQSS), then the attributes reset.
    text += "\u{1B}[38;2;\(colour.red);\(colour.green);\(colour.blue)m\u{1B}P$qm\u{1B}\\\u{1B}[m"
    return text + "\u{1B}[c"
  }

  /// Whether kitty's query (an APC string) may be sent: the Linux console prints it as
  /// text, and tmux and GNU screen take it for a title (a pane named `Gi=31,…`).
  static func asksKitty(_ environment: [String: String]) -> Bool {
    let term = environment["TERM"] ?? ""
    let multiplexed =
      !(environment["TMUX"] ?? "").isEmpty || term.hasPrefix("screen") || term.hasPrefix("tmux")
    return term != "linux" && !multiplexed
  }

  /// Asks the terminal stdout shows, through the controlling terminal; nil when stdout is
  /// not that terminal. Keys typed during the probe are given back to the terminal's input
  /// (TIOCSTI), where the kernel allows it.
  public static func ask() -> TerminalAnswers? {
    guard Terminal.stdoutIsTerminal, stdoutIsControllingTerminal, let tty = ControllingTerminal(),
      // A job in the background would be stopped (SIGTTIN) reading its answers.
      tcgetpgrp(tty.descriptor) == getpgrp()
    else {
      return nil
    }
    let reader = tty.withLocalModesCleared(tcflag_t(ICANON | ECHO), flush: false) {
      tty.write(queries(kitty: asksKitty(ProcessInfo.processInfo.environment)))
      return read(tty.descriptor)
    }
    giveBack(reader.typed, to: tty.descriptor)
    return reader.answers
  }

  /// Writes `text` to the terminal stdout shows, then asks the row (1-based) its cursor is
  /// on then (`CSI 6 n`, then `CSI c`, which ends the wait); nil when stdout is not the
  /// controlling terminal or it did not say.
  static func cursorRow(after text: String) -> Int? {
    guard Terminal.stdoutIsTerminal, stdoutIsControllingTerminal, let tty = ControllingTerminal(),
      tcgetpgrp(tty.descriptor) == getpgrp()
    else { return nil }
    let reader = tty.withLocalModesCleared(tcflag_t(ICANON | ECHO), flush: false) {
      tty.write(text + "\u{1B}[6n\u{1B}[c")
      return read(tty.descriptor)
    }
    giveBack(reader.typed, to: tty.descriptor)
    return reader.answers.cursorRow
  }

  /// Sets the number of sixel colour registers (XTSMGRAPHICS), and reads the terminal's
  /// answer to it, so that it is not taken for keys.
  static func setColourRegisters(_ count: Int) {
    guard let tty = ControllingTerminal() else { return }
    let reader = tty.withLocalModesCleared(tcflag_t(ICANON | ECHO), flush: false) {
      tty.write("\u{1B}[?1;3;\(count)S\u{1B}[c")
      return read(tty.descriptor)
    }
    giveBack(reader.typed, to: tty.descriptor)
  }

  /// Puts keys typed during a probe back into the terminal's input, where the kernel
  /// allows it (TIOCSTI; Linux 6.2 may forbid it: the keys are then lost).
  private static func giveBack(_ typed: [UInt8], to descriptor: Int32) {
    for var byte in typed { _ = ioctl(descriptor, UInt(TIOCSTI), &byte) }
  }

  /// How much longer an answer that has begun may take to end, past `timeout`: cut off,
  /// its rest would reach the shell as typed text.
  static let answerEndTimeout = 0.2

  /// Reads answers until the device attributes came, `timeout` passed or `longestInput`
  /// bytes were read; an answer under way is read to its end (`answerEndTimeout` more).
  private static func read(_ descriptor: Int32) -> TerminalAnswerReader {
    var reader = TerminalAnswerReader()
    var total = 0
    var deadline = Date().addingTimeInterval(timeout)
    var extended = false
    while !reader.finished, total < longestInput {
      if !extended, reader.isInSequence, deadline.timeIntervalSinceNow < answerEndTimeout {
        deadline = Date().addingTimeInterval(answerEndTimeout)
        extended = true
      }
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else { break }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32((remaining * 1000).rounded(.up)))
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0, poller.revents & Int16(POLLIN) != 0 else { break }
      // Byte by byte, so that nothing typed after the last answer is taken.
      var byte: UInt8 = 0
      let count = Glibc.read(descriptor, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      total += 1
      reader.feed([byte])
    }
    return reader
  }

  /// Whether stdout is the controlling terminal (which `/dev/tty` opens): answers come
  /// from it. (`fstat` of `/dev/tty` gives `/dev/tty` itself, not the terminal.)
  private static var stdoutIsControllingTerminal: Bool {
    let session = tcgetsid(STDOUT_FILENO)
    return session >= 0 && session == getsid(0)
  }
}
