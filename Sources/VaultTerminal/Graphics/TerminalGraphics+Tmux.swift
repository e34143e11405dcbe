extension TerminalGraphics {
  /// A picture printed where the cursor is inside tmux, through its passthrough, as the one
  /// line `printable` makes: room is made under the cursor (the pane scrolls now), the pane
  /// is asked which row that leaves the cursor on, and each tile is placed at its cells of
  /// the terminal outside; the cursor is left on the picture's last line. Blank lines when
  /// the pane did not say where its cursor is.
  func printed(_ pixels: PicturePixels, columns: Int, rows: Int, indent: Int, through pane: TmuxPane)
    -> [String]
  {
    let room = String(repeating: "\n", count: rows) + "\u{1B}[\(rows)A"
    guard let top = TerminalProbe.cursorRow(after: room) else { return Array(repeating: "", count: rows) }
    var bytes: [UInt8] = []
    for (tile, lines) in render(pixels, columns: columns, rows: rows, screenRows: Terminal.rows) {
      bytes += pane.placed(Array(lines.joined().utf8), row: top - 1 + tile.row, column: indent + tile.column)
    }
    return [String(decoding: bytes, as: UTF8.self) + "\u{1B}[\(top + rows - 1);1H"]
  }
}
