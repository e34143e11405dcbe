import CChafa

extension TerminalGraphics {
  /// Makes libchafa print kitty's pictures at their own size in pixels (their cells at the
  /// cell size tmux passes on from the terminal), without the rows and columns to scale them
  /// to. tmux scrolls its pane in a scroll region that leaves out its status line, and kitty
  /// (0.26) cuts what scrolls out of the region off a picture but keeps the rows
  /// it was placed on, stretching the rest over them: the grid row scrolled partly off the
  /// top drawn as vertical streaks. A picture placed at its own size keeps its own scale.
  static func printKittyAtPixelSize(_ info: OpaquePointer) {
    chafa_term_info_set_seq(
      info, CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1, "\u{1B}_Ga=T,f=%1,s=%2,v=%3,m=1\u{1B}\\", nil)
  }

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
