import VaultCore

/// The grid mode's cursor cell and scroll position, in photo indexes and grid rows of
/// `perRow` photos. The count is passed in every time and never stored (the data source
/// re-reads it). Moves do not scroll: call `scrollToCursor(visibleRows:)` after them,
/// once the screen's height is known.
public struct GridCursor: Equatable, Sendable {
  /// 0-based photo index.
  public var index: Int
  /// Photos a row; values below 1 count as 1.
  public var perRow: Int {
    didSet { perRow = max(1, perRow) }
  }
  /// The grid row shown at the top of the screen.
  public private(set) var firstVisibleRow: Int

  public init(index: Int = 0, perRow: Int) {
    self.index = max(0, index)
    self.perRow = max(1, perRow)
    firstVisibleRow = 0
  }

  /// The arrows (hjkl). Left/right go along the photos in reading order, so → at the end
  /// of a row goes on to the next row's first photo. Up/down keep the column; down into a
  /// shorter last row lands on its last photo; past the first or last row stays.
  public mutating func move(dx: Int, dy: Int, count: Int) {
    clamp(count: count)
    guard count > 0 else { return }
    index = min(max(0, index + dx), count - 1)
    moveRows(dy, count: count)
  }

  /// PgUp/PgDn (`pages` −1 or 1): the cursor and the view move by a screenful of rows
  /// together, so the cursor keeps its place on the screen, both clamped at the ends.
  public mutating func page(_ pages: Int, visibleRows: Int, count: Int) {
    clamp(count: count)
    let visibleRows = max(1, visibleRows)
    let rowsMoved = pages * visibleRows
    let lastFirstRow = max(0, Self.rowCount(count: count, perRow: perRow) - visibleRows)
    firstVisibleRow = min(max(0, firstVisibleRow + rowsMoved), lastFirstRow)
    moveRows(rowsMoved, count: count)
    scrollToCursor(visibleRows: visibleRows)
  }

  public mutating func home() {
    index = 0
    firstVisibleRow = 0
  }

  public mutating func end(count: Int) {
    index = max(0, count - 1)
  }

  /// Clamps into 0..<count (0 when there is none), as after a deletion.
  public mutating func clamp(count: Int) {
    index = min(max(0, index), max(0, count - 1))
  }

  /// Scrolls as little as possible so that the cursor's row is among `visibleRows` rows
  /// starting at `firstVisibleRow`.
  public mutating func scrollToCursor(visibleRows: Int) {
    let row = index / perRow
    if row < firstVisibleRow {
      firstVisibleRow = row
    } else if row >= firstVisibleRow + max(1, visibleRows) {
      firstVisibleRow = row - max(1, visibleRows) + 1
    }
  }

  /// The photos on the visible rows: only their thumbnails need decrypting.
  public func visibleIndexes(visibleRows: Int, count: Int) -> Range<Int> {
    let start = min(firstVisibleRow * perRow, max(0, count))
    let end = min((firstVisibleRow + max(1, visibleRows)) * perRow, max(0, count))
    return start..<max(start, end)
  }

  private mutating func moveRows(_ rowsMoved: Int, count: Int) {
    guard count > 0, rowsMoved != 0 else { return }
    let lastRow = (count - 1) / perRow
    let row = min(max(0, index / perRow + rowsMoved), lastRow)
    index = min(row * perRow + index % perRow, count - 1)
  }

  private static func rowCount(count: Int, perRow: Int) -> Int {
    (max(0, count) + perRow - 1) / perRow
  }
}
