import CChafa
import VaultCore

/// The pixels of a picture to draw: a photo (RGB) or a grid row (RGBA).
enum PicturePixels {
  case rgb(RGBImage)
  case rgba(pixels: [UInt8], width: Int, height: Int)

  var size: PixelSize {
    switch self {
    case .rgb(let image): return PixelSize(width: image.width, height: image.height)
    case .rgba(_, let width, let height): return PixelSize(width: width, height: height)
    }
  }

  /// The part `rect` of the pixels (clamped to them), a copy the caller wipes.
  func cropped(to rect: PixelRect) -> PicturePixels {
    switch self {
    case .rgb(let image):
      var part = image.cropped(to: rect)
      // `cropped` returns the image itself when the rectangle is all of it: copied into
      // a buffer of its own, so that the caller may zero its image in place (a shrunk one).
      // A part is a copy already, let go after its copy is made: wiped first.
      let isWhole = part.width == image.width && part.height == image.height
      let copy = RGBImage(width: part.width, height: part.height, pixels: Array(part.pixels[...]))
      if !isWhole { part.pixels.wipe() }
      return .rgb(copy)
    case .rgba(let pixels, let width, let height):
      let left = min(max(0, rect.x), width - 1)
      let top = min(max(0, rect.y), height - 1)
      let partWidth = max(1, min(rect.width, width - left))
      let partHeight = max(1, min(rect.height, height - top))
      var part = [UInt8](repeating: 0, count: partWidth * partHeight * 4)
      for y in 0..<partHeight {
        let from = ((top + y) * width + left) * 4
        part[(y * partWidth * 4)..<((y + 1) * partWidth * 4)] = pixels[from..<(from + partWidth * 4)]
      }
      return .rgba(pixels: part, width: partWidth, height: partHeight)
    }
  }

  mutating func wipe() {
    switch self {
    case .rgb(var image):
      image.pixels.wipe()
      self = .rgb(image)
    case .rgba(var pixels, let width, let height):
      pixels.wipe()
      self = .rgba(pixels: pixels, width: width, height: height)
    }
  }
}

extension TerminalGraphics {
  var drawsSixel: Bool { pixelMode == CHAFA_PIXEL_MODE_SIXELS }

  /// The tiles a `columns`×`rows` picture is drawn in: one, but for sixel images larger
  /// than the terminal shows (see `SixelTiles`), or (`screenRows`) taller than the screen
  /// less a line, where output that scrolls draws tiles side by side.
  func tiles(columns: Int, rows: Int, screenRows: Int? = nil) -> [CellRect] {
    guard drawsSixel else { return [CellRect(column: 0, row: 0, columns: columns, rows: rows)] }
    var largest = largestSixel
    if let screenRows {
      largest.height = min(
        largest.height, max(1, screenRows - 1) * characterHeight + SixelTiles.bandHeight - 1)
    }
    return SixelTiles.tiles(
      columns: columns, rows: rows, cell: PixelSize(width: characterWidth, height: characterHeight),
      largest: largest)
  }

  /// `pixels` drawn into `columns`×`rows` cells, tile by tile: each tile's text and where
  /// it goes.
  func render(_ pixels: PicturePixels, columns: Int, rows: Int, screenRows: Int? = nil) -> [(
    tile: CellRect, lines: [String]
  )] {
    let whole = PixelRect(x: 0, y: 0, width: pixels.size.width, height: pixels.size.height)
    let tiles = tiles(columns: columns, rows: rows, screenRows: screenRows)
    return tiles.map { tile in
      let renderer = ChafaRenderer(graphics: self, columns: tile.columns, rows: tile.rows)
      guard tiles.count > 1 else { return (tile, renderer.render(pixels)) }
      var part = pixels.cropped(to: SixelTiles.source(of: tile, in: whole, columns: columns, rows: rows))
      defer { part.wipe() }
      return (tile, renderer.render(part))
    }
  }

  /// A grid row drawn into `columns`×`rows` cells after `indent` columns, as lines to print
  /// from the start of a line, each followed by a newline: after the last, the cursor is on
  /// the line under the row.
  public func printable(_ row: GridRowImage, columns: Int, rows: Int, indent: Int) -> [String] {
    printable(
      .rgba(pixels: row.pixels, width: row.width, height: row.height), columns: columns, rows: rows,
      indent: indent)
  }

  /// A photo drawn into `columns`×`rows` cells, as lines to print (see the grid row's).
  public func printable(_ image: RGBImage, columns: Int, rows: Int) -> [String] {
    printable(.rgb(image), columns: columns, rows: rows, indent: 0)
  }

  private func printable(_ pixels: PicturePixels, columns: Int, rows: Int, indent: Int) -> [String] {
    if let tmux { return printed(pixels, columns: columns, rows: rows, indent: indent, through: tmux) }
    let drawn = render(pixels, columns: columns, rows: rows, screenRows: Terminal.rows)
    let margin = String(repeating: " ", count: indent)
    guard drawn.count > 1 else { return drawn.first?.lines.map { margin + $0 } ?? [] }
    // Band by band (tiles of the same rows), room is made first (the screen scrolls now,
    // not while the tiles are drawn), then each tile is drawn from the band's top-left
    // corner, saved and restored around it; a band is never taller than the screen.
    let escape = "\u{1B}"
    var text = ""
    for band in Dictionary(grouping: drawn, by: { $0.tile.row }).sorted(by: { $0.key < $1.key }) {
      let height = band.value[0].tile.rows
      text += String(repeating: "\n", count: height) + "\(escape)[\(height)A"
      for (tile, lines) in band.value {
        text += "\(escape)7"
        if indent + tile.column > 0 { text += "\(escape)[\(indent + tile.column)C" }
        text += lines.joined() + "\(escape)8"
      }
      text += "\(escape)[\(height)B"
    }
    // On the picture's last line: the newline printed after it goes under it.
    return [text + "\(escape)[A"]
  }
}
