import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// Sixel pictures larger than the terminal shows, cut into images that fit.
final class SixelTilesTests: XCTestCase {
  let largest = PixelSize(width: 1000, height: 1000)

  /// Every tile fits, the tiles cover the area once, and they meet at cell boundaries.
  func assertTiles(_ tiles: [CellRect], cover columns: Int, _ rows: Int, cell: PixelSize) {
    var covered = [Int](repeating: 0, count: columns * rows)
    for tile in tiles {
      XCTAssertLessThanOrEqual(tile.columns * cell.width, largest.width)
      XCTAssertLessThanOrEqual(tile.rows * cell.height + SixelTiles.bandHeight - 1, largest.height)
      for row in tile.row..<(tile.row + tile.rows) {
        for column in tile.column..<(tile.column + tile.columns) { covered[row * columns + column] += 1 }
      }
    }
    XCTAssertEqual(Set(covered), [1])
  }

  /// A 160-column grid row in xterm's 7×14 font is 1120 pixels wide: two images of 80
  /// columns. At 120 columns (840 pixels) it stays one.
  func testAWideGridRowIsCut() {
    let cell = PixelSize(width: 7, height: 14)
    let wide = SixelTiles.tiles(columns: 156, rows: 12, cell: cell, largest: largest)
    XCTAssertEqual(
      wide,
      [
        CellRect(column: 0, row: 0, columns: 78, rows: 12),
        CellRect(column: 78, row: 0, columns: 78, rows: 12),
      ])
    assertTiles(wide, cover: 156, 12, cell: cell)
    XCTAssertEqual(SixelTiles.tiles(columns: 116, rows: 12, cell: cell, largest: largest).count, 1)
  }

  /// A photo filling a large screen is cut both ways.
  func testAFullScreenPhotoIsCutBothWays() {
    let cell = PixelSize(width: 10, height: 20)
    let tiles = SixelTiles.tiles(columns: 250, rows: 70, cell: cell, largest: largest)
    XCTAssertEqual(tiles.count, 3 * 2)
    assertTiles(tiles, cover: 250, 70, cell: cell)
  }

  /// Cells larger than the largest image still get one tile each, never none.
  func testHugeCells() {
    let cell = PixelSize(width: 256, height: 256)
    let tiles = SixelTiles.tiles(columns: 5, rows: 5, cell: cell, largest: PixelSize(width: 100, height: 100))
    XCTAssertEqual(tiles.count, 25)
  }

  /// Each tile shows its share of the source, next to its neighbours'.
  func testSourcesOfTiles() {
    let source = PixelRect(x: 100, y: 50, width: 1001, height: 300)
    let tiles = [
      CellRect(column: 0, row: 0, columns: 78, rows: 12), CellRect(column: 78, row: 0, columns: 78, rows: 12),
    ]
    let parts = tiles.map { SixelTiles.source(of: $0, in: source, columns: 156, rows: 12) }
    XCTAssertEqual(parts[0], PixelRect(x: 100, y: 50, width: 500, height: 300))
    XCTAssertEqual(parts[1], PixelRect(x: 600, y: 50, width: 501, height: 300))
  }

  /// A terminal saying its largest image is tiny (1×1 made two photos 6000 images) is taken
  /// to have xterm's default.
  func testATinyLargestImageIsNotBelieved() {
    XCTAssertEqual(
      SixelTiles.believable(PixelSize(width: 1, height: 1)), TerminalGraphics.defaultLargestSixel)
    XCTAssertEqual(
      SixelTiles.believable(PixelSize(width: 4000, height: 100)), TerminalGraphics.defaultLargestSixel)
    XCTAssertEqual(
      SixelTiles.believable(PixelSize(width: 4000, height: 300)), PixelSize(width: 4000, height: 300))
  }

  /// A grid row of huge reported cells (256×256 a character: one photo a row at 160 columns
  /// was 40448×40448 pixels) is drawn within the pixel limit, keeping the cells' shape.
  func testAGridRowOfHugeCellsStaysWithinItsLimit() throws {
    let layout = try GridLayout(columns: 160, perRow: 1)
    let huge = GridRowImage.characterSize(
      layout: layout, rows: 158, character: PixelSize(width: 256, height: 256))
    XCTAssertLessThanOrEqual(layout.rowWidth * huge.width * 158 * huge.height, GridRowImage.pixelLimit)
    XCTAssertEqual(huge.width, huge.height)
    let usual = PixelSize(width: 10, height: 20)
    XCTAssertEqual(GridRowImage.characterSize(layout: layout, rows: 79, character: usual), usual)
  }

}

/// What is sent: every sixel image within the largest size, each placed at its cells.
final class SixelTilesDrawingTests: XCTestCase {
  /// The widths and heights in the raster attributes (`" 1 ; 1 ; width ; height`) of each
  /// sixel image in `text`.
  func rasterSizes(_ text: String) -> [PixelSize] {
    let pattern = try! NSRegularExpression(pattern: "\u{1B}P[0-9;]*q\"1;1;(\\d+);(\\d+)")
    let range = NSRange(text.startIndex..., in: text)
    return pattern.matches(in: text, range: range).map { match in
      PixelSize(
        width: Int(text[Range(match.range(at: 1), in: text)!])!,
        height: Int(text[Range(match.range(at: 2), in: text)!])!)
    }
  }

  func gradient(width: Int, height: Int) -> RGBImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        pixels[(y * width + x) * 3] = UInt8(x * 255 / width)
        pixels[(y * width + x) * 3 + 1] = UInt8(y * 255 / height)
      }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
  }

  /// `list` and `show`: a picture wider than the largest sixel comes out as several images,
  /// each within it, the second moved right by the first one's columns.
  func testPrintedPicturesFit() throws {
    let graphics = try XCTUnwrap(TerminalGraphics.resolve(.sixel))
    let columns = 2 * graphics.largestSixel.width / graphics.characterWidth + 3
    let lines = graphics.printable(gradient(width: 2000, height: 200), columns: columns, rows: 10)
    let sizes = rasterSizes(lines.joined())
    XCTAssertEqual(sizes.count, 3)
    for size in sizes {
      XCTAssertLessThanOrEqual(size.width, graphics.largestSixel.width)
      XCTAssertLessThanOrEqual(size.height, graphics.largestSixel.height)
    }
    XCTAssertTrue(lines.joined().contains("\u{1B}7\u{1B}[\(columns / 3)C\u{1B}P"))
  }

  /// The viewer: a zoomed photo over a wide screen is placed as several images, each at its
  /// own cell.
  func testTheViewersPicturesFit() throws {
    let graphics = try XCTUnwrap(TerminalGraphics.resolve(.sixel))
    let columns = graphics.largestSixel.width / graphics.characterWidth + 10
    let drawing = ChafaPictureDrawing(graphics: graphics)
    let image = gradient(width: 3000, height: 1000)
    let bytes = drawing.draw(
      key: .thumbnail(BlobID(high: 1, low: 2)), source: PixelRect(x: 500, y: 100, width: 1500, height: 300),
      column: 2,
      row: 1, columns: columns, rows: 8
    ) { .photo(image) }
    let text = String(decoding: bytes, as: UTF8.self)
    let sizes = rasterSizes(text)
    XCTAssertEqual(sizes.count, 2)
    for size in sizes { XCTAssertLessThanOrEqual(size.width, graphics.largestSixel.width) }
    XCTAssertTrue(text.hasPrefix("\u{1B}[2;3H\u{1B}P"))
    XCTAssertTrue(text.contains("\u{1B}[2;\(3 + columns / 2)H\u{1B}P"))
  }

  /// Output that scrolls (`list`, `show`) draws a picture taller than the screen in bands
  /// each shorter than the screen, so that the tiles of a band can be drawn side by side.
  func testBandsAreShorterThanTheScreen() throws {
    let graphics = try XCTUnwrap(TerminalGraphics.resolve(.sixel))
    let tiles = graphics.tiles(columns: 10, rows: 30, screenRows: 10)
    XCTAssertGreaterThan(tiles.count, 1)
    for tile in tiles { XCTAssertLessThanOrEqual(tile.rows, 9) }
    XCTAssertEqual(tiles.map(\.rows).reduce(0, +), 30)
  }

  /// The colour registers asked for: libchafa's 256 where the terminal uses fewer and
  /// allows more; none where it uses enough or allows no more.
  func testColourRegistersToSet() {
    func answers(_ current: Int?, _ maximum: Int?) -> TerminalAnswers {
      var answers = TerminalAnswers()
      answers.colourRegisters = current
      answers.maximumColourRegisters = maximum
      return answers
    }
    XCTAssertEqual(TerminalGraphics.sixelRegistersToSet(answers(16, 1024)), 256)
    XCTAssertEqual(TerminalGraphics.sixelRegistersToSet(answers(16, 64)), 64)
    XCTAssertNil(TerminalGraphics.sixelRegistersToSet(answers(1024, 1024)))
    XCTAssertNil(TerminalGraphics.sixelRegistersToSet(answers(16, 16)))
    XCTAssertNil(TerminalGraphics.sixelRegistersToSet(answers(16, nil)))
  }
}
