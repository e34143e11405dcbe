import VaultCore

/// The one-line progress report drawn on a terminal: `[#####-----] 12/200 name`. It always
/// fits in one line narrower than the terminal, so it never wraps (a wrapped bar would
/// leave a fragment in the scrollback at every redraw).
public enum ProgressLine {
  /// The widest bar drawn, and the narrowest worth drawing (below it only the counter is
  /// shown).
  static let barWidth = 30
  static let minimumBarWidth = 10

  /// The line for `done` of `total` items, `label` naming the current one (escaped for the
  /// terminal), at most `columns - 1` columns wide; empty when even the counter does not fit.
  public static func text(done: Int, total: Int, label: String, columns: Int) -> String {
    let room = columns - 1
    let counter = "\(done)/\(total)"
    guard room >= counter.count, total > 0 else { return "" }
    var line = counter
    // "[" bar "] " counter, then " " label if there is room.
    let barRoom = min(barWidth, room - counter.count - 3)
    if barRoom >= minimumBarWidth {
      let filled = barRoom * min(done, total) / total
      line =
        "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barRoom - filled) + "] "
        + counter
    }
    let labelRoom = room - line.count - 1
    if labelRoom >= 4 {
      line += " " + DisplayWidth.truncate(TerminalSafeText.escaped(label), to: labelRoom)
    }
    return line
  }
}
