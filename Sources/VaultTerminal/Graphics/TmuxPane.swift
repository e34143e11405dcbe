import Foundation

/// The tmux pane vault runs in, as tmux tells it (`tmux display -p`): whether it passes
/// graphics through to the terminal outside, where its top-left cell is on that terminal,
/// and which terminal that is.
struct TmuxPane: Equatable {
  /// `allow-passthrough` is on for the pane (tmux 3.3: set for it, its window or globally).
  var passthrough: Bool
  /// The outside terminal's row and column (0-based) of the pane's top-left cell: its
  /// place in the window, below a status line at the top.
  var top: Int
  var left: Int
  /// The TERM of the terminal of the client attached, empty when none is.
  var outerTerminal: String

  /// Bytes that show a picture (`picture`: a kitty command or a sixel image drawn where the
  /// cursor is) with its top-left cell at the pane's `row` and `column` (0-based): the
  /// cursor is moved in the pane for tmux, and again, in the outside terminal's cells,
  /// inside the passthrough, since tmux writes a passthrough wherever the outside
  /// terminal's cursor happens to be.
  func placed(_ picture: [UInt8], row: Int, column: Int) -> [UInt8] {
    Array("\u{1B}[\(row + 1);\(column + 1)H".utf8)
      + TmuxPassthrough.wrapped(Array("\u{1B}[\(top + row + 1);\(left + column + 1)H".utf8) + picture)
  }
}

extension TmuxPane {
  /// What `tmux display -p` is asked for, fields separated by `|`.
  static let format =
    "#{allow-passthrough}|#{pane_top}|#{pane_left}|#{status}|#{status-position}|#{client_termname}"

  /// The largest number of cells (a place, or status lines) believed from tmux: no terminal
  /// is that large, and sums of such numbers and a screen's cells cannot overflow.
  static let farthestCell = 10_000

  /// The pane from tmux's answer to `format`; nil for an answer that is not one, or that
  /// puts the pane farther than `farthestCell`.
  init?(answer: String) {
    let fields = answer.trimmingCharacters(in: .newlines).split(
      separator: "|", omittingEmptySubsequences: false)
    guard fields.count == 6, let top = Self.cells(fields[1]), let left = Self.cells(fields[2]) else {
      return nil
    }
    // `status` is off, on (one line) or the number of lines; at the top they push panes down.
    let status = fields[3] == "on" ? 1 : fields[3] == "off" || fields[3].isEmpty ? 0 : Self.cells(fields[3])
    guard let status else { return nil }
    passthrough = fields[0] == "1" || fields[0] == "on"
    self.top = top + (fields[4] == "top" ? status : 0)
    self.left = left
    outerTerminal = String(fields[5])
  }

  /// A count of cells from tmux's answer, nil past `farthestCell` or below 0.
  private static func cells(_ field: Substring) -> Int? {
    guard let number = Int(field), (0...farthestCell).contains(number) else { return nil }
    return number
  }
}
