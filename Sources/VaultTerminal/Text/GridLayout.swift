import VaultCore

/// Agony's grid geometry in terminal columns: N cells a row, separated by a gutter,
/// inside a margin on each side.
public struct GridLayout: Equatable, Sendable {
  public var columns: Int
  public var perRow: Int
  public var gutter: Int
  public var margin: Int

  public static let defaultGutter = 2
  public static let defaultMargin = 1
  /// Narrower cells cannot show a number and a readable name.
  public static let minimumCellWidth = 8

  /// Checks that N cells fit in the width; throws an error with a hint otherwise.
  public init(columns: Int, perRow: Int, gutter: Int = defaultGutter, margin: Int = defaultMargin) throws {
    guard perRow >= 1 else { throw VaultError.invalidArgument("--per-row must be at least 1") }
    self.columns = columns
    self.perRow = perRow
    self.gutter = gutter
    self.margin = margin
    // Compared with the most that fit before any cell width is worked out: `perRow` is the
    // user's number, and up to Int.max it must not reach the formula's products.
    let most = Self.maximumPerRow(columns: columns, gutter: gutter, margin: margin)
    if perRow > most {
      let width = perRow <= columns ? "\(max(cellWidth, 0))" : "0"
      throw VaultError.invalidArgument(
        "\(perRow) photos a row do not fit in \(columns) columns (cells would be \(width) wide); "
          + (most >= 1 ? "use --per-row \(most) or less, or a wider terminal" : "use a wider terminal"))
    }
  }

  /// cell width = (width − (n − 1) · gutter − 2 · margin) / n, rounded down.
  public var cellWidth: Int {
    (columns - (perRow - 1) * gutter - 2 * margin) / perRow
  }

  /// The first column (0-based) of cell `position` in its row.
  public func cellStart(_ position: Int) -> Int {
    margin + position * (cellWidth + gutter)
  }

  /// Columns from the first cell's left edge to the last one's right edge.
  public var rowWidth: Int {
    perRow * cellWidth + (perRow - 1) * gutter
  }

  /// Text rows a cell takes to look square, given the size of one character cell in
  /// pixels (a character is usually about twice as tall as wide, so rows ≈ width / 2).
  public func cellRows(characterWidth: Int, characterHeight: Int) -> Int {
    guard characterWidth > 0, characterHeight > 0 else { return max(1, (cellWidth + 1) / 2) }
    return max(1, Int((Double(cellWidth * characterWidth) / Double(characterHeight)).rounded()))
  }

  /// The line under a cell: a tick for a selected photo, its number and its name, cut to
  /// the cell's width by display width (wide characters count as two columns). The name
  /// is shown escaped (control characters), and the escaped form is what is measured.
  public func label(number: Int, name: String, selected: Bool) -> String {
    DisplayWidth.truncate(
      (selected ? "✔ " : "") + "\(number) " + TerminalSafeText.escaped(name), to: cellWidth)
  }

  /// The second line under a cell: the day the photo was taken (else imported, marked
  /// `*`), as the text grid's last line shows it; empty when the cell is too narrow for it.
  public func dateLabel(_ record: PhotoRecord) -> String {
    let day = PhotoListing.shownDay(record)
    return DisplayWidth.of(day) <= cellWidth ? day : ""
  }

  /// The most cells a row that keep each at least `minimumCellWidth` wide.
  public static func maximumPerRow(columns: Int, gutter: Int = defaultGutter, margin: Int = defaultMargin)
    -> Int
  {
    max(0, (columns - 2 * margin + gutter) / (minimumCellWidth + gutter))
  }
}
