import Foundation
import VaultCore

/// Frames: the grid screen, and how a frame reaches the terminal.
extension PhotoViewer {
  func redraw() {
    let size = terminal.size
    followPhotos()
    followPlayback()
    // The frame of a video or animation is sent first, on its own: kitty shows a
    // synchronized frame whole only up to about a megabyte, and one that held the upload
    // of a large frame showed the erased screen, black, before the frame was placed.
    uploadPlayingFrame()
    if count > 0 { uploadPagePhoto() }
    // The frame is shown whole (synchronized output, DEC mode 2026, where the terminal has
    // it; others ignore it): a video redraws it many times a second, and kitty showed the
    // erased screen between frames, black.
    emit(Self.beginSynchronizedFrame)
    emit(drawing.beginFrame())
    // Erased from the top-left corner down (ED 0), not as a whole screen (ED 2): kitty drops
    // the images it holds when the screen is cleared, and placing them again shows nothing.
    emit(Array("\u{1B}[H\u{1B}[J".utf8))
    drawnOriginal = nil
    var keep: Set<PictureKey> = []
    if showsHelp {
      emit(helpScreen(columns: size.columns, rows: size.rows))
    } else if asksAboutSeveralPhotos, case .confirmDeletion(let doomed) = prompt {
      emit(deletionScreen(doomed, columns: size.columns, rows: size.rows))
    } else if count == 0 {
      emit(
        text(
          browser.emptyText
            + (browser.scopeDescription.isEmpty && !emptyHint.isEmpty ? "; " + emptyHint : ""),
          row: 0))
    } else if screen == .grid {
      gridScreen(columns: size.columns, rows: size.rows)
    } else {
      photoScreen(columns: size.columns, rows: size.rows, keep: &keep)
    }
    emit(statusLine(columns: size.columns, row: size.rows - 1))
    // After the status line: the photo on screen is complete before megabytes of its
    // neighbours' pixels go to the terminal.
    if screen == .photo, !showsHelp, count > 0 { sendDecodedAhead(keep: &keep) }
    emit(drawing.endFrame(keep: keep))
    emit(Self.endSynchronizedFrame)
    sendFrame()
    // Now that the photo is on screen, its neighbours are decoded.
    if screen == .photo, !showsHelp, count > 0, let viewport {
      requestOriginals(around: page.index, viewport: viewport)
    }
  }

  /// Adds `bytes` to the frame. A picture (kitty's upload of a photo is megabytes of its
  /// pixels) is sent on its own, without being copied into a frame buffer that would be
  /// freed unwiped: what is waiting goes first, then the picture, each wiped once sent.
  func emit(_ bytes: [UInt8]) {
    guard bytes.count >= Self.pictureBytes else {
      terminal.write(bytes)
      return
    }
    sendFrame()
    terminal.write(bytes)
    sendFrame()
  }

  /// Whether the screen asks about deleting several photos (and shows none of them).
  var asksAboutSeveralPhotos: Bool {
    if case .confirmDeletion(let doomed) = prompt { return doomed.photos.count > 1 }
    return false
  }

  static let pictureBytes = 1 << 16
  static let beginSynchronizedFrame = Array("\u{1B}[?2026h".utf8)
  static let endSynchronizedFrame = Array("\u{1B}[?2026l".utf8)

  /// Sends what is waiting. Before, kitty's cleanup on exit (even by a signal in the middle
  /// of an upload) names every image sent or being sent and every image about to be
  /// deleted; once sent, only what the terminal still holds.
  func sendFrame() {
    if let kitty = drawing as? KittyPictureDrawing { terminal.graphicsCleanup = kitty.cleanup }
    terminal.flush()
    if let kitty = drawing as? KittyPictureDrawing {
      kitty.deletionsSent()
      terminal.graphicsCleanup = kitty.cleanup
    }
  }

  func text(_ line: String, row: Int, column: Int = 0) -> [UInt8] {
    Array("\u{1B}[\(row + 1);\(column + 1)H".utf8) + Array(TerminalSafeText.escaped(line).utf8)
  }

  // MARK: Grid

  var gridGeometry: (layout: GridLayout?, cellRows: Int, visibleRows: Int) {
    let size = terminal.size
    guard let layout = try? GridLayout(columns: size.columns, perRow: cursor.perRow) else {
      return (nil, 1, 1)
    }
    // Square cells, unless one would not fit on the screen (a short window, one photo a
    // row): then as tall as fits, cropped like any cell.
    let cellRows = max(
      1, min(layout.cellRows(characterWidth: cell.width, characterHeight: cell.height), size.rows - 3))
    // Each grid row: the pictures, a label line, a blank line; the status line at the bottom.
    let visibleRows = max(1, (size.rows - 1 + 1) / (cellRows + 2))
    return (layout, cellRows, visibleRows)
  }

  func gridScreen(columns: Int, rows: Int) {
    let (layout, cellRows, visibleRows) = gridGeometry
    guard let layout else {
      return emit(
        text(
          "\(cursor.perRow) photos a row do not fit in \(columns) columns; widen the terminal", row: 0))
    }
    cursor.scrollToCursor(visibleRows: visibleRows)
    let visible = cursor.visibleIndexes(visibleRows: visibleRows, count: count)
    let photos = visible.map { (index: $0, photo: browser.photo(at: $0)!) }
    // Only the visible rows' thumbnails are decrypted (kitty keeps rows it was sent).
    let style = graphics.selectedLabelStyle
    let remoteOriginals = browser.dataSource.remoteOriginals()
    for (rowNumber, row) in browser.rows(of: photos).enumerated() {
      let top = rowNumber * (cellRows + 2)
      guard top + cellRows < rows else { break }
      // As `gridRowImage` makes it: within its pixel limit.
      let character = GridRowImage.characterSize(layout: layout, rows: cellRows, character: cell)
      let key = PictureKey.gridRow(
        photos: row.map(\.photo.record.id), selected: row.map(\.photo.isSelected),
        width: layout.rowWidth * character.width, height: cellRows * character.height)
      emit(
        drawing.draw(
          key: key,
          source: PixelRect(
            x: 0, y: 0, width: layout.rowWidth * character.width, height: cellRows * character.height),
          column: layout.margin, row: top, columns: layout.rowWidth, rows: cellRows
        ) {
          .gridRow(
            browser.gridRowImage(
              row, layout: layout, cellRows: cellRows, characterWidth: cell.width,
              characterHeight: cell.height
            ) { index, error in
              self.report(error, as: "warning", reading: photos.first { $0.index == index }?.photo)
            })
        })
      let names = browser.shownNames(of: row.map(\.photo))
      for item in row {
        let position = item.index % cursor.perRow
        var label = DisplayWidth.pad(
          layout.label(
            number: item.index + 1, name: names.of(item.photo.record), selected: item.photo.isSelected,
            mark: PhotoListing.kindMark(item.photo, remote: remoteOriginals)),
          to: layout.cellWidth)
        if item.photo.isSelected { label = style.start + label + style.end }
        if item.index == cursor.index { label = "\u{1B}[7m" + label + "\u{1B}[27m" }
        emit(
          Array("\u{1B}[\(top + cellRows + 1);\(layout.cellStart(position) + 1)H".utf8) + Array(label.utf8))
      }
    }
  }
}
