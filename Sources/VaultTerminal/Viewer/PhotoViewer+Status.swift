import Foundation
import VaultCore

/// The status line and the help screen.
extension PhotoViewer {
  func statusLine(columns: Int, row: Int) -> [UInt8] {
    var line: String
    if let prompt {
      line = promptText(prompt)
    } else if count == 0 || showsHelp {
      line = showsHelp ? "any key: back" : "q: quit"
    } else if screen == .grid {
      let selected = browser.selectedPhotos().count
      // An action's outcome (below) takes the place of the keys' reminder, back at the next key.
      line =
        "\(cursor.index + 1) / \(count)  \(selected) selected"
        + (message == nil ? "  Enter: open  space: select  ?: keys  q: quit" : "")
    } else {
      let photo = browser.photo(at: page.index)!
      let failed = preloader.failure(photo.record.id) != nil
      // A photo that could not be read shows its error, not a size and zoom of nothing shown.
      var after = failed ? "" : pictureStatus(photo)
      if photo.isSelected { after += "  ✔" }
      // As drawn: an original decoded while this frame was drawn shows in the next one.
      if drawnOriginal != photo.record.id && !failed { after += "  loading…" }
      let before = "\(page.index + 1) / \(count)  "
      // A long name is cut, not what follows it: the mark and the zoom must show.
      let room = max(8, columns - DisplayWidth.of(before) - DisplayWidth.of(after))
      let name = TerminalSafeText.escaped(browser.shownNames(of: [photo]).of(photo.record))
      line = before + DisplayWidth.truncate(name, to: room) + after
    }
    if prompt != nil {
      // Why an answer was not taken yet, after it.
      if let message { line += "  — " + TerminalSafeText.escaped(message) }
      // What is being typed, and the [y/N], are at the end: a narrow line keeps the end.
      while DisplayWidth.of(line) >= columns, line.count > 1 { line.removeFirst() }
    }
    // An action's outcome follows the status, until the next key.
    if prompt == nil, let message { line += "  — " + TerminalSafeText.escaped(message) }
    return Array("\u{1B}[\(row + 1);1H\u{1B}[2K\u{1B}[7m".utf8)
      + Array(DisplayWidth.pad(DisplayWidth.truncate(line, to: columns), to: columns).utf8)
      + Array("\u{1B}[27m".utf8)
  }

  /// The size, the kind of a video or Live Photo, the date taken and the zoom of a photo shown.
  private func pictureStatus(_ photo: PhotoModel) -> String {
    var status = "  \(photo.record.width)×\(photo.record.height)"
    // A Live Photo's says "live", its motion's duration and how to play it.
    if let video = videoStatus(photo) { status += video }
    if let taken = browser.withFoundDetails(photo.record).taken { status += "  " + taken.shownDate }
    return status + "  \(viewport?.zoomPercent ?? 100)%"
  }

  /// The question a prompt asks, with what was typed so far.
  private func promptText(_ prompt: Prompt) -> String {
    switch prompt {
    case .goToNumber(let typed): return "go to photo number (1-\(count)), Enter: " + typed
    case .confirmDeletion(let doomed):
      let what =
        doomed.photos.count == 1
        ? selectedInGrid(doomed.photos[0])
          + "'\(TerminalSafeText.escaped(browser.shownNames(of: [doomed.photos[0].photo]).of(doomed.photos[0].photo.record)))'"
        : "the \(doomed.photos.count) photos listed"
      return "Move \(what) to Recently Deleted? [y/N]"
    case .exportFolder(let typed, let photos):
      let single = photos.count == 1 ? selectedInGrid(photos[0]) : ""
      let what =
        photos.count > 1
        ? " \(photos.count) selected photos"
        : single.isEmpty
          ? ""
          : " " + single
            + "'\(TerminalSafeText.escaped(browser.shownNames(of: [photos[0].photo]).of(photos[0].photo.record)))'"
      return
        "export\(what) to folder (Enter: a new vault-export-<date>): " + TerminalSafeText.escaped(typed)
    case .albumName(let typed):
      let what = browser.selectedPhotos().count
      return
        "add \(what == 0 ? "this photo" : what == 1 ? "1 selected photo" : "\(what) selected photos") to album (Esc: cancel): "
        + TerminalSafeText.escaped(typed)
    }
  }

  /// "the selected photo 2 " when the grid's `d` or `e` acts on a selected photo (which may
  /// not be the one under the cursor, nor on screen), else nothing: the number tells two
  /// photos of the same name apart.
  func selectedInGrid(_ item: (index: Int, photo: PhotoModel)) -> String {
    screen == .grid && item.photo.isSelected ? "the selected photo \(item.index + 1) " : ""
  }

  static let helpLines = [
    "vault view: keys",
    "",
    "Grid",
    "  arrows, h j k l     move",
    "  PgUp PgDn           a screen up or down",
    "  Home End, g G       first, last photo",
    "  space, s            select or unselect",
    "  a NAME Enter        add the selected photos (or this one) to album NAME",
    "  d                   to Recently Deleted: the selected photos (or this one; asks)",
    "  e                   export the selected photos (or this one) to a folder",
    "  Enter               open the photo",
    "",
    "Photo",
    "  n p, → ←, space     next, previous photo (→ ← pan when zoomed)",
    "  Enter, space        play a video (Enter: a Live Photo's motion);",
    "                      then space pause, → ← 10 s on, back, q stop",
    "  Home End            first, last photo",
    "  g NUMBER Enter      go to photo NUMBER",
    "  + -                 zoom in, out",
    "  z                   fit / actual pixels (1:1; a small photo: 4× fit)",
    "  PgUp PgDn           a screen up, down (zoomed or tall), else page",
    "  arrows, h j k l     pan when zoomed (↑ ↓ also scroll a tall photo)",
    "  s                   select or unselect",
    "  d                   move to Recently Deleted (asks first)",
    "  e                   export the original to a folder",
    "  i                   details",
    "  Esc                 back to the grid",
    "",
    "  ?                   these keys      q   quit",
  ]

  /// The photos a deletion of several would delete, each by its number and name (as `vault
  /// delete` asks), and the albums they leave; the question itself is on the status line.
  func deletionScreen(_ doomed: DeletionText, columns: Int, rows: Int) -> [UInt8] {
    let albums = doomed.albumLine { browser.album(named: $0)?.count ?? 0 }
    let room = max(1, rows - 4 - (albums == nil ? 0 : 1))
    let lines =
      ["Move these \(VaultTerminal.photos(doomed.photos.count)) to Recently Deleted?", ""]
      + doomed.photoLines(limit: doomed.photos.count > room ? room - 1 : room)
      + (albums.map { ["", $0] } ?? [])
    var bytes: [UInt8] = []
    for (row, line) in lines.enumerated() where row < rows - 1 {
      // Escaped before it is cut: a name's control characters take several columns shown.
      bytes += Array("\u{1B}[\(row + 1);2H".utf8)
      bytes += Array(DisplayWidth.truncate(TerminalSafeText.escaped(line), to: columns - 2).utf8)
    }
    return bytes
  }

  func helpScreen(columns: Int, rows: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    for (row, line) in Self.helpLines.enumerated() where row < rows - 1 {
      bytes += text(DisplayWidth.truncate(line, to: columns - 2), row: row, column: 1)
    }
    return bytes
  }
}
