import XCTest

@testable import VaultCore
@testable import VaultTerminal

final class GridTests: XCTestCase {
  func testLayoutAtCommonWidthsForOneToTenPerRow() throws {
    for columns in [40, 80, 100, 237] {
      for perRow in 1...10 {
        let expected =
          (columns - (perRow - 1) * GridLayout.defaultGutter - 2 * GridLayout.defaultMargin) / perRow
        guard expected >= GridLayout.minimumCellWidth else {
          XCTAssertThrowsError(try GridLayout(columns: columns, perRow: perRow), "\(columns)/\(perRow)") {
            error in
            XCTAssertTrue("\(error)".contains("photos a row do not fit in \(columns) columns"), "\(error)")
          }
          continue
        }
        let layout = try GridLayout(columns: columns, perRow: perRow)
        XCTAssertEqual(layout.cellWidth, expected, "\(columns)/\(perRow)")
        XCTAssertLessThanOrEqual(layout.margin + layout.rowWidth + layout.margin, columns)
        XCTAssertEqual(layout.cellStart(perRow - 1) + layout.cellWidth, layout.margin + layout.rowWidth)
        // Square cells: half as many rows as columns for 1:2 characters.
        XCTAssertEqual(
          layout.cellRows(characterWidth: 8, characterHeight: 16),
          max(1, Int((Double(expected) / 2).rounded())))
        XCTAssertEqual(layout.cellRows(characterWidth: 10, characterHeight: 10), expected)
      }
    }
    // 40 columns hold at most 4 cells of 8; 237 hold 10 of 21.
    XCTAssertNoThrow(try GridLayout(columns: 40, perRow: 4))
    XCTAssertThrowsError(try GridLayout(columns: 40, perRow: 5))
    XCTAssertEqual(try GridLayout(columns: 237, perRow: 10).cellWidth, 21)
  }

  func testLabelsAreCutByDisplayWidthAndMarkTheSelection() throws {
    let layout = try GridLayout(columns: 40, perRow: 4)  // cells of 8 columns
    XCTAssertEqual(layout.label(number: 3, name: "IMG.jpg", selected: false), "3 IMG.j…")
    XCTAssertEqual(layout.label(number: 3, name: "IMG.jpg", selected: true), "✔ 3 IMG…")
    XCTAssertEqual(layout.label(number: 12, name: "写真写真.jpg", selected: false), "12 写真…")
    XCTAssertEqual(DisplayWidth.of(layout.label(number: 12, name: "写真写真.jpg", selected: false)), 8)
    XCTAssertEqual(layout.label(number: 7, name: "a.jpg", selected: false), "7 a.jpg")
    XCTAssertLessThanOrEqual(DisplayWidth.of(layout.label(number: 1, name: "🐱🐱🐱🐱🐱", selected: true)), 8)
  }

  func testRowImagePlacesCellsWithTransparentGuttersAndMarksSelection() throws {
    let layout = try GridLayout(columns: 40, perRow: 4)
    let red = RGBImage(
      width: 2, height: 2,
      pixels: [UInt8](repeating: 0, count: 12).enumerated().map { $0.offset % 3 == 0 ? 200 : 0 })
    let image = GridRowImage(
      cells: [
        .init(thumbnail: red, selected: false), .init(thumbnail: red, selected: true),
        .init(thumbnail: nil, selected: false),
      ],
      layout: layout, rows: 4, characterWidth: 2, characterHeight: 4)
    XCTAssertEqual(image.width, layout.rowWidth * 2)
    XCTAssertEqual(image.height, 16)
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
      Array(image.pixels[((y * image.width + x) * 4)..<((y * image.width + x) * 4 + 4)])
    }
    let cell = layout.cellWidth * 2
    let step = (layout.cellWidth + layout.gutter) * 2
    XCTAssertEqual(pixel(5, 8), [200, 0, 0, 255], "first cell: the photo")
    XCTAssertEqual(pixel(cell + 1, 8)[3], 0, "gutter: transparent")
    XCTAssertEqual(pixel(step, 0), [0x2F, 0x9B, 0xFF, 255], "selected: framed")
    XCTAssertEqual(pixel(step + 5, 8), [90, 0, 0, 255], "selected: dimmed")
    XCTAssertEqual(pixel(2 * step + 5, 8), [0x40, 0x40, 0x40, 255], "unreadable thumbnail: gray")
    XCTAssertEqual(pixel(3 * step + 5, 8)[3], 0, "no fourth photo: transparent")
  }

  func testAspectFillCropsTheCentre() {
    // 4×2: left half black, right half white; filling a 1×1 square keeps the middle two columns.
    let picture = RGBImage(
      width: 4, height: 2,
      pixels: [
        0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255,
      ])
    XCTAssertEqual(picture.aspectFilled(width: 1, height: 1).pixels, [128, 128, 128])
    XCTAssertEqual(
      picture.aspectFilled(width: 2, height: 2).pixels, [0, 0, 0, 255, 255, 255, 0, 0, 0, 255, 255, 255])
    // Enlarging repeats pixels.
    XCTAssertEqual(picture.aspectFilled(width: 8, height: 4).width, 8)
  }
}
