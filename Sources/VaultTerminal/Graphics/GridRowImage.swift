import VaultCore

/// One row of the thumbnail grid as a single RGBA picture: each photo fills its cell,
/// centre-cropped; gutters and empty cells are transparent, so the terminal's own
/// background shows through. Cells line up with character cells exactly, so a renderer
/// can draw the row as one image (sixel, kitty, iTerm2) or as symbols.
public struct GridRowImage: Sendable {
  /// A cell's content: the thumbnail (nil when it could not be read) and whether the
  /// photo is selected.
  public struct Cell: Sendable {
    public var thumbnail: RGBImage?
    public var selected: Bool

    public init(thumbnail: RGBImage?, selected: Bool) {
      self.thumbnail = thumbnail
      self.selected = selected
    }
  }

  public let width: Int
  public let height: Int
  /// RGBA, unassociated alpha, row by row.
  public let pixels: [UInt8]

  /// Selected photos are dimmed to this fraction of their brightness…
  public static let selectedDimming = 0.45
  /// …and framed in this colour, so the mark shows in every mode, even without the label.
  public static let selectionColour: (UInt8, UInt8, UInt8) = (0x2F, 0x9B, 0xFF)
  /// Stands in for a thumbnail that cannot be read.
  public static let missingColour: (UInt8, UInt8, UInt8) = (0x40, 0x40, 0x40)

  /// The most pixels a row picture may have (RGBA: 32 MB). A terminal that reports huge
  /// cells (an answer to `CSI 16 t` is anyone's to send) made a row of one photo at 160
  /// columns take gigabytes; past this the characters are taken smaller, keeping their
  /// shape: the terminal scales the picture to its cells anyway.
  public static let pixelLimit = 4096 * 2048

  /// The character size a row of `layout`, `rows` characters tall, is drawn with:
  /// `character`, shrunk to keep the row within `pixelLimit`.
  public static func characterSize(layout: GridLayout, rows: Int, character: PixelSize) -> PixelSize {
    let pixels = Double(layout.rowWidth * character.width) * Double(rows * character.height)
    guard pixels > Double(pixelLimit) else { return character }
    let shrink = (Double(pixelLimit) / pixels).squareRoot()
    return PixelSize(
      width: max(1, Int(Double(character.width) * shrink)),
      height: max(1, Int(Double(character.height) * shrink)))
  }

  /// Lays `cells` out as `layout` says, each `layout.cellWidth` characters wide and `rows`
  /// characters tall, a character being `characterWidth`×`characterHeight` pixels.
  public init(cells: [Cell], layout: GridLayout, rows: Int, characterWidth: Int, characterHeight: Int) {
    precondition(cells.count <= layout.perRow && rows > 0 && characterWidth > 0 && characterHeight > 0)
    width = layout.rowWidth * characterWidth
    height = rows * characterHeight
    let cellPixelWidth = layout.cellWidth * characterWidth
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    let frame = max(1, min(cellPixelWidth, height) / 40)
    for (position, cell) in cells.enumerated() {
      let left = position * (layout.cellWidth + layout.gutter) * characterWidth
      var picture =
        cell.thumbnail?.aspectFilled(width: cellPixelWidth, height: height)
        ?? RGBImage(
          width: 1, height: 1, pixels: [Self.missingColour.0, Self.missingColour.1, Self.missingColour.2]
        ).aspectFilled(width: cellPixelWidth, height: height)
      defer { picture.pixels.wipe() }
      for y in 0..<height {
        for x in 0..<cellPixelWidth {
          let from = (y * cellPixelWidth + x) * 3
          let to = (y * width + left + x) * 4
          if cell.selected && (x < frame || y < frame || x >= cellPixelWidth - frame || y >= height - frame) {
            pixels[to] = Self.selectionColour.0
            pixels[to + 1] = Self.selectionColour.1
            pixels[to + 2] = Self.selectionColour.2
          } else if cell.selected {
            pixels[to] = UInt8(Double(picture.pixels[from]) * Self.selectedDimming)
            pixels[to + 1] = UInt8(Double(picture.pixels[from + 1]) * Self.selectedDimming)
            pixels[to + 2] = UInt8(Double(picture.pixels[from + 2]) * Self.selectedDimming)
          } else {
            pixels[to] = picture.pixels[from]
            pixels[to + 1] = picture.pixels[from + 1]
            pixels[to + 2] = picture.pixels[from + 2]
          }
          pixels[to + 3] = 255
        }
      }
    }
    self.pixels = pixels
  }
}
