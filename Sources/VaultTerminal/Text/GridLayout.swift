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

  /// Why a number of cells a row does not fit: the CLI words it with its flag.
  public enum Misfit: Error, Equatable, CustomStringConvertible {
    case noCells
    /// `perRow` cells of `cellWidth` columns would be too narrow; `mostThatFit` would not (0:
    /// not even one).
    case tooMany(perRow: Int, columns: Int, cellWidth: Int, mostThatFit: Int)

    public var description: String {
      switch self {
      case .noCells: return "a grid needs at least 1 photo a row"
      case .tooMany(let perRow, let columns, let cellWidth, _):
        return "\(perRow) photos a row do not fit in \(columns) columns (cells would be \(cellWidth) wide)"
      }
    }
  }

  /// Checks that N cells fit in the width; throws `Misfit` otherwise.
  public init(columns: Int, perRow: Int, gutter: Int = defaultGutter, margin: Int = defaultMargin)
    throws(Misfit)
  {
    guard perRow >= 1 else { throw .noCells }
    self.columns = columns
    self.perRow = perRow
    self.gutter = gutter
    self.margin = margin
    // Compared with the most that fit before any cell width is worked out: `perRow` is the
    // user's number, and up to Int.max it must not reach the formula's products.
    let most = Self.maximumPerRow(columns: columns, gutter: gutter, margin: margin)
    if perRow > most {
      throw .tooMany(
        perRow: perRow, columns: columns, cellWidth: perRow <= columns ? max(cellWidth, 0) : 0,
        mostThatFit: most)
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

  /// The line under a cell: a tick for a selected photo, its number, its `mark` (a video's
  /// duration, "live": before the name, which is what gets cut) and its name, cut to the
  /// cell's width by display width (wide characters count as two columns). The name is
  /// shown escaped (control characters), and the escaped form is what is measured.
  public func label(number: Int, name: String, selected: Bool, mark: String? = nil) -> String {
    DisplayWidth.truncate(
      (selected ? "✔ " : "") + "\(number) " + (mark.map { $0 + " " } ?? "") + TerminalSafeText.escaped(name),
      to: cellWidth)
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
