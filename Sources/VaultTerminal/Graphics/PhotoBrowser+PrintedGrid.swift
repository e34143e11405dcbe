import VaultCore

extension PhotoBrowser {
  /// `rows` as a grid printed on the terminal (`vault list --per-row`): each row's
  /// pictures, then a line of labels (number, name as an export names the file, selected) and one of dates, then a
  /// blank line. Drawn a row at a time, so that only that row's thumbnails are decrypted.
  /// Each line goes to `write` ready to be written as it is; a thumbnail that cannot be read
  /// is drawn as a gray cell, and `failure` hears why.
  public func printGrid(
    _ rows: [[(index: Int, photo: PhotoModel)]], layout: GridLayout, graphics: TerminalGraphics,
    write: (String) -> Void, failure: (Error) -> Void
  ) {
    let cellRows = layout.cellRows(
      characterWidth: graphics.characterWidth, characterHeight: graphics.characterHeight)
    let margin = String(repeating: " ", count: layout.margin)
    let gutter = String(repeating: " ", count: layout.gutter)
    let style = graphics.selectedLabelStyle
    let remote = dataSource.remoteOriginals()
    let names = shownNames(of: rows.flatMap { $0.map(\.photo) })
    for row in rows {
      let image = gridRowImage(
        row, layout: layout, cellRows: cellRows, characterWidth: graphics.characterWidth,
        characterHeight: graphics.characterHeight
      ) { _, error in failure(error) }
      for line in graphics.printable(image, columns: layout.rowWidth, rows: cellRows, indent: layout.margin) {
        write(line)
      }
      let labels = row.map { item -> String in
        let text = DisplayWidth.pad(
          layout.label(
            number: item.index + 1, name: names.of(item.photo.record), selected: item.photo.isSelected,
            mark: PhotoListing.kindMark(item.photo, remote: remote)),
          to: layout.cellWidth)
        return item.photo.isSelected ? style.start + text + style.end : text
      }
      write(margin + labels.joined(separator: gutter))
      let dates = row.map { DisplayWidth.pad(layout.dateLabel($0.photo.record), to: layout.cellWidth) }
      write(TerminalSafeText.escaped(margin + dates.joined(separator: gutter)))
      write("")
    }
  }
}
