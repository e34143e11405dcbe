import ArgumentParser
import Foundation
import VaultCore

struct ListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List the photos of the space, numbered from 1 in import order.",
    discussion: """
      With --per-row on a terminal, draws each photo's thumbnail in a grid (kitty, iTerm2 \
      or sixel graphics where the terminal has them, else coloured Unicode symbols). Only \
      the thumbnails being drawn are decrypted, row by row, in memory. Piped output, \
      NO_COLOR and TERM=dumb get the text layout.
      """)

  @OptionGroup var options: VaultOptions

  @Option(help: "Lay photos out in a grid of this many cells a row.")
  var perRow: Int?

  @Option(help: "How to draw the grid: auto, kitty, iterm2, sixel, symbols or text.")
  var mode: DisplayMode = .auto

  @Flag(help: "List only the selected photos.")
  var selected = false

  @Option(help: "Start at this photo number.")
  var from: Int?

  @Option(help: "List at most this many photos.")
  var count: Int?

  @Flag(help: "Print one JSON array for scripts.")
  var json = false

  func validate() throws {
    if let perRow, perRow < 1 { throw ValidationError("--per-row must be at least 1.") }
    if let from, from < 1 { throw ValidationError("--from must be at least 1.") }
    if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
    if json && perRow != nil { throw ValidationError("--json and --per-row cannot be used together.") }
    if json && mode != .auto { throw ValidationError("--json never draws; leave out --mode.") }
    // Checked before the password is asked for: the width is known already.
    if let perRow {
      do {
        _ = try GridLayout(columns: Terminal.columns, perRow: perRow)
      } catch let error as VaultError {
        throw ValidationError(error.description)
      }
    }
  }

  func run() throws {
    let space = try options.unlock(.read)
    let all = space.entries
    // Numbers stay those of the whole list, whatever is left out.
    let onlySelected = selected  // read once: a property wrapper is slow in a big space's loop
    var shown = all.indices.filter { !onlySelected || all[$0].selected }
    if let from { shown = shown.filter { $0 >= from - 1 } }
    if let count { shown = Array(shown.prefix(count)) }
    let browser = PhotoBrowser(numberOfPhotosPerRow: perRow ?? 1)
    browser.numberOfPhotos = { shown.count }
    // Models only for the photos shown: a big space lists a page quickly.
    browser.photoAtIndex = { space.model(at: shown[$0]) }
    let rows = browser.rows().map { $0.map { (index: shown[$0.index], photo: $0.photo) } }
    let photos = rows.flatMap { $0 }

    if json {
      printRaw(try PhotoListing.json(photos))
      return
    }
    if photos.isEmpty {
      printLine(all.isEmpty ? "no photos in this space" : "no photos to list")
      if all.isEmpty { Diagnostics.hint("add some with 'vault add PATH'") }
      return
    }
    let columns = Terminal.columns
    guard let perRow else {
      for line in PhotoListing.table(photos, columns: columns) { printLine(line) }
      return
    }
    let layout = try GridLayout(columns: columns, perRow: perRow)
    guard let graphics = TerminalGraphics.resolve(mode) else {
      for line in PhotoListing.grid(rows, layout: layout) { printLine(line) }
      return
    }
    try drawGrid(rows, layout: layout, graphics: graphics, space: space)
  }

  /// Draws the rows one at a time, decrypting only that row's thumbnails.
  private func drawGrid(
    _ rows: [[(index: Int, photo: PhotoModel)]], layout: GridLayout, graphics: TerminalGraphics, space: Space
  ) throws {
    let cellRows = layout.cellRows(
      characterWidth: graphics.characterWidth, characterHeight: graphics.characterHeight)
    let renderer = ChafaRenderer(graphics: graphics, columns: layout.rowWidth, rows: cellRows)
    let margin = String(repeating: " ", count: layout.margin)
    let gutter = String(repeating: " ", count: layout.gutter)
    let style = graphics.selectedLabelStyle
    let cellPixels = (
      width: layout.cellWidth * graphics.characterWidth, height: cellRows * graphics.characterHeight
    )
    for row in rows {
      let cells = row.map { item in
        GridRowImage.Cell(
          thumbnail: thumbnail(of: item.photo.record, space: space, atLeast: cellPixels),
          selected: item.photo.isSelected)
      }
      let image = GridRowImage(
        cells: cells, layout: layout, rows: cellRows, characterWidth: graphics.characterWidth,
        characterHeight: graphics.characterHeight)
      for line in renderer.render(image) { printRaw(margin + line) }
      let labels = row.map { item -> String in
        let text = DisplayWidth.pad(
          layout.label(number: item.index + 1, name: item.photo.record.name, selected: item.photo.isSelected),
          to: layout.cellWidth)
        return item.photo.isSelected ? style.start + text + style.end : text
      }
      printRaw(margin + labels.joined(separator: gutter))
      printLine("")
    }
  }

  private func thumbnail(of record: PhotoRecord, space: Space, atLeast size: (width: Int, height: Int))
    -> RGBImage?
  {
    do {
      var bytes = try space.thumbnail(of: record)
      defer { bytes.wipe() }
      return try RGBImage.decodeJPEG(
        bytes, name: "thumbnail of '\(record.name)'", minimumWidth: size.width, minimumHeight: size.height)
    } catch {
      Diagnostics.warning("\(error); drawn as a gray cell")
      return nil
    }
  }
}
