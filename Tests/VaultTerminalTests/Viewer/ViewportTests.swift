import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// The screen in these tests is 80×24 cells of 10×20 pixels: 800×480 pixels, whose
/// height/width is 0.6, so a photo is tall past height/width 1.5, and past 2, the least a
/// photo must be to be tall on any screen.
final class ViewportTests: XCTestCase {
  let cell = PixelSize(width: 10, height: 20)

  func viewport(_ width: Int, _ height: Int, columns: Int = 80, rows: Int = 24) -> Viewport {
    Viewport(image: PixelSize(width: width, height: height), columns: columns, rows: rows, cell: cell)
  }

  func place(
    _ x: Int, _ y: Int, _ width: Int, _ height: Int, at column: Int, _ row: Int, _ columns: Int, _ rows: Int
  )
    -> Viewport.Placement
  {
    Viewport.Placement(
      source: PixelRect(x: x, y: y, width: width, height: height), column: column, row: row, columns: columns,
      rows: rows)
  }

  func testAWidePhotoFitsTheWidthAndIsCentredVertically() {
    let view = viewport(4000, 1000)
    XCTAssertFalse(view.isTall)
    XCTAssertEqual(view.fitScale, 0.2)
    XCTAssertEqual(view.scale, view.fitScale)
    XCTAssertFalse(view.isZoomed)
    XCTAssertEqual(view.zoomPercent, 20)
    // 800×200 pixels: 80 columns, 10 rows, (24 − 10) / 2 rows above.
    XCTAssertEqual(view.placement, place(0, 0, 4000, 1000, at: 0, 7, 80, 10))
  }

  func testATallPhotoUnderTheThresholdFitsItsHeightAndIsCentredHorizontally() {
    let view = viewport(1000, 1500)  // height/width exactly 2.5 × 0.6: not taller than it
    XCTAssertFalse(view.isTall)
    XCTAssertEqual(view.fitScale, 0.32)
    XCTAssertEqual(view.placement, place(0, 0, 1000, 1500, at: 24, 0, 32, 24))
    XCTAssertFalse(view.isZoomed)
    // Past 2.5 × the screen's aspect, but not twice as tall as wide: fitted whole.
    XCTAssertFalse(viewport(1000, 2000).isTall)
  }

  /// On a wide terminal (200×50 cells: height/width 0.5), a 3:4 portrait is more than 2.5 ×
  /// the screen's aspect, and is still fitted whole: it is a photo, not a page to read.
  func testAPortraitOnAWideScreenIsFittedWhole() {
    let view = viewport(1200, 1600, columns: 200, rows: 50)
    XCTAssertFalse(view.isTall)
    XCTAssertEqual(view.fitScale, 1000.0 / 1600.0)
    XCTAssertTrue(viewport(1000, 2100, columns: 200, rows: 50).isTall)
  }

  func testAVeryTallPhotoFillsTheWidthAndStartsAtItsTop() {
    var view = viewport(1000, 2001)  // one pixel past both thresholds
    XCTAssertTrue(view.isTall)
    XCTAssertEqual(view.fitScale, 0.8)
    XCTAssertFalse(view.isZoomed)
    XCTAssertEqual(view.placement, place(0, 0, 1000, 600, at: 0, 0, 80, 24))
    // At fit, only down has more image: a step is a quarter of the 600 visible rows.
    view.pan(dx: 0, dy: 1)
    XCTAssertEqual(view.placement, place(0, 150, 1000, 600, at: 0, 0, 80, 24))
    view.pan(dx: 5, dy: 0)
    XCTAssertEqual(view.placement.source.x, 0)
    view.pan(dx: 0, dy: 100)
    XCTAssertEqual(view.placement, place(0, 1401, 1000, 600, at: 0, 0, 80, 24))
    view.pan(dx: 0, dy: -100)
    XCTAssertEqual(view.placement.source.y, 0)
    XCTAssertEqual(view.zoomPercent, 80)
  }

  func testZoomingOutATallPhotoKeepsItsReadingPositionButFitGoesBackToTheTop() {
    var view = viewport(1000, 6000)
    view.pan(dx: 0, dy: 8)
    let reading = view.placement.source.y
    XCTAssertGreaterThan(reading, 0)
    view.zoomIn()
    view.zoomOut()
    XCTAssertFalse(view.isZoomed)
    XCTAssertEqual(view.placement.source.y, reading)
    view.fit()
    XCTAssertEqual(view.placement.source.y, 0)
  }

  func testASmallPhotoIsEnlargedToFitAndZToggleGoesToTheMaximum() {
    var view = viewport(10, 10)
    XCTAssertEqual(view.fitScale, 48)
    XCTAssertEqual(view.maximumScale, 192)
    XCTAssertEqual(view.placement, place(0, 0, 10, 10, at: 16, 0, 48, 24))
    view.toggleActualSize()  // 1:1 is smaller than fit
    XCTAssertEqual(view.scale, 192)
    // 800/192 and 480/192 image pixels visible: 4.17 and 2.5, rounded to 4 and 3.
    XCTAssertEqual(view.placement, place(3, 4, 4, 3, at: 0, 0, 80, 24))
    view.toggleActualSize()
    XCTAssertEqual(view, viewport(10, 10))
  }

  func testOnePixelPhotosGetAtLeastOneCellAndOnePixel() {
    let dot = viewport(1, 1)
    XCTAssertEqual(dot.fitScale, 480)
    XCTAssertEqual(dot.placement, place(0, 0, 1, 1, at: 16, 0, 48, 24))

    // A 1×5000 line is tall: it fills the width, one pixel 800 screen pixels wide.
    var column = viewport(1, 5000)
    XCTAssertTrue(column.isTall)
    XCTAssertEqual(column.fitScale, 800)
    XCTAssertEqual(column.placement, place(0, 0, 1, 1, at: 0, 0, 80, 24))
    column.pan(dx: 0, dy: 1)  // a quarter of 0.6 pixels is less than one: one pixel
    XCTAssertEqual(column.placement.source.y, 1)
    column.pan(dx: 0, dy: 1_000_000)
    XCTAssertEqual(column.placement.source, PixelRect(x: 0, y: 4999, width: 1, height: 1))

    // A 5000×1 line is 0.16 screen pixels tall at fit, still one row, in the middle.
    var row = viewport(5000, 1)
    XCTAssertEqual(row.fitScale, 0.16)
    XCTAssertEqual(row.maximumScale, 1)
    XCTAssertEqual(row.placement, place(0, 0, 5000, 1, at: 0, 11, 80, 1))
    row.toggleActualSize()
    XCTAssertEqual(row.scale, 1)
    XCTAssertEqual(row.placement, place(2100, 0, 800, 1, at: 0, 11, 80, 1))
    row.pan(dx: -1_000, dy: 0)
    XCTAssertEqual(row.placement.source.x, 0)
  }

  func testZoomStaysBetweenFitAndMaximum() {
    var view = viewport(4000, 3000)
    let start = view
    view.zoomOut()
    XCTAssertEqual(view, start, "zooming out at fit does nothing")
    view.zoomIn()
    XCTAssertEqual(view.scale, 0.16 * Viewport.zoomStep, accuracy: 1e-12)
    XCTAssertTrue(view.isZoomed)
    for _ in 0..<20 { view.zoomIn() }
    XCTAssertEqual(view.scale, 1, "1:1 is more than 4× fit")
    XCTAssertEqual(view.zoomPercent, 100)
    for _ in 0..<20 { view.zoomOut() }
    XCTAssertEqual(view, start)

    // 4× fit is more than 1:1 here, and four steps reach it exactly.
    var small = viewport(400, 300)
    XCTAssertEqual(small.maximumScale, 6.4, accuracy: 1e-12)
    for _ in 0..<4 { small.zoomIn() }
    XCTAssertEqual(small.scale, small.maximumScale)
    small.zoomIn()
    XCTAssertEqual(small.scale, small.maximumScale)
  }

  func testZTogglesBetweenFitAndOneToOneAroundTheViewCentre() {
    var view = viewport(4000, 3000)
    let start = view
    view.toggleActualSize()
    XCTAssertEqual(view.scale, 1)
    XCTAssertEqual(view.placement, place(1600, 1260, 800, 480, at: 0, 0, 80, 24))
    view.toggleActualSize()
    XCTAssertEqual(view, start)

    // Zoomed in and panned, z goes back to fit, centred.
    view.zoomIn()
    view.pan(dx: -2, dy: 1)
    view.toggleActualSize()
    XCTAssertEqual(view, start)

    // A tall photo read down to rows 1200...1800 at fit goes to 1:1 around row 1500.
    var tall = viewport(1000, 6000)
    tall.pan(dx: 0, dy: 8)
    XCTAssertEqual(tall.placement.source, PixelRect(x: 0, y: 1200, width: 1000, height: 600))
    tall.toggleActualSize()
    XCTAssertEqual(tall.scale, 1)
    XCTAssertEqual(tall.placement.source, PixelRect(x: 100, y: 1260, width: 800, height: 480))
    tall.toggleActualSize()
    XCTAssertEqual(tall, viewport(1000, 6000), "fit goes back to the top")
  }

  func testZoomInKeepsTheViewCentre() {
    var view = viewport(4000, 3000)
    view.toggleActualSize()
    view.pan(dx: 3, dy: -2)
    let before = view.placement.source
    view.zoomOut()
    view.zoomOut()
    let after = view.placement.source
    XCTAssertEqual(
      Double(after.x) + Double(after.width) / 2, Double(before.x) + Double(before.width) / 2, accuracy: 1)
    XCTAssertEqual(
      Double(after.y) + Double(after.height) / 2, Double(before.y) + Double(before.height) / 2, accuracy: 1)
  }

  func testPanningIsClampedOnEachSide() {
    var view = viewport(4000, 3000)
    view.toggleActualSize()  // 1:1: 800×480 of 4000×3000 visible
    view.pan(dx: 1, dy: 0)
    XCTAssertEqual(view.placement.source, PixelRect(x: 1800, y: 1260, width: 800, height: 480))
    view.pan(dx: -100, dy: 0)
    XCTAssertEqual(view.placement.source.x, 0)
    view.pan(dx: 100, dy: 0)
    XCTAssertEqual(view.placement.source.x, 3200)
    view.pan(dx: 0, dy: -100)
    XCTAssertEqual(view.placement.source.y, 0)
    view.pan(dx: 0, dy: 100)
    XCTAssertEqual(view.placement.source, PixelRect(x: 3200, y: 2520, width: 800, height: 480))
    XCTAssertEqual(view.placement.columns, 80)
    XCTAssertEqual(view.placement.rows, 24)
  }

  func testPanningAnAxisThatFitsDoesNothing() {
    var view = viewport(4000, 3000)
    let start = view
    view.pan(dx: 3, dy: -3)
    XCTAssertEqual(view, start, "at fit both axes fit")

    // A wide photo one step in: 1131×283 screen pixels, wider but not taller than 800×480.
    var wide = viewport(4000, 1000)
    wide.zoomIn()
    let placed = wide.placement
    XCTAssertEqual(placed.source.y, 0)
    XCTAssertEqual(placed.source.height, 1000)
    XCTAssertEqual(placed.rows, 14)
    XCTAssertEqual(placed.row, 5)
    wide.pan(dx: 0, dy: 5)
    XCTAssertEqual(wide.placement, placed)
    wide.pan(dx: 1, dy: 0)
    XCTAssertGreaterThan(wide.placement.source.x, placed.source.x)
  }

  func testResizeAtFitStaysAtTheNewFit() {
    var view = viewport(4000, 3000)
    view.resize(columns: 100, rows: 50, cell: cell)  // 1000×1000 pixels
    XCTAssertEqual(view, viewport(4000, 3000, columns: 100, rows: 50))
    XCTAssertEqual(view.fitScale, 0.25)
    XCTAssertEqual(view.placement, place(0, 0, 4000, 3000, at: 0, 6, 100, 38))
    view.resize(columns: 0, rows: 0, cell: PixelSize(width: 0, height: 0))
    XCTAssertEqual(view.placement, place(0, 0, 4000, 3000, at: 0, 0, 1, 1))

    // A tall photo read halfway down keeps the row at the top of the view.
    var tall = viewport(1000, 6000)
    tall.pan(dx: 0, dy: 8)
    let top = tall.placement.source.y
    tall.resize(columns: 40, rows: 24, cell: cell)
    XCTAssertEqual(tall.fitScale, 0.4)
    XCTAssertFalse(tall.isZoomed)
    XCTAssertEqual(tall.placement.source.y, top)
    XCTAssertEqual(tall.placement.source.height, 1200)
  }

  func testResizeWhileZoomedKeepsTheZoomOverFitAndTheCentre() {
    var view = viewport(4000, 3000)
    view.zoomIn()
    view.zoomIn()  // 2× fit: 0.32
    view.pan(dx: -1, dy: 1)
    let centre = (view.centreX, view.centreY)
    view.resize(columns: 100, rows: 50, cell: cell)
    XCTAssertEqual(view.scale, 2 * 0.25, accuracy: 1e-12)
    XCTAssertEqual(view.centreX, centre.0)
    XCTAssertEqual(view.centreY, centre.1)
    XCTAssertTrue(view.isZoomed)

    // 1:1 is 6.25× fit; a smaller screen (fit 0.08) keeps that (0.5), a larger one (fit
    // 0.32) is clamped to its maximum, 4× fit, and the view centre to the image.
    var corner = viewport(4000, 3000)
    corner.toggleActualSize()
    corner.pan(dx: 100, dy: 100)
    corner.resize(columns: 40, rows: 12, cell: cell)
    XCTAssertEqual(corner.scale, 0.5, accuracy: 1e-12)
    XCTAssertEqual(corner.placement.source, PixelRect(x: 3200, y: 2520, width: 800, height: 480))
    corner.resize(columns: 160, rows: 48, cell: cell)
    XCTAssertEqual(corner.scale, 1.28, accuracy: 1e-12)
    XCTAssertEqual(corner.placement.source, PixelRect(x: 2750, y: 2250, width: 1250, height: 750))
  }

  func testDecodeDenominatorIsTheLargestThatStillGivesAPixelPerScreenPixel() {
    // A photo w×1 on the 800-pixel-wide screen fits at 800 / w.
    XCTAssertEqual(viewport(8000, 1).neededScaleDenominator, 8)
    XCTAssertEqual(viewport(6400, 1).neededScaleDenominator, 8)
    XCTAssertEqual(viewport(6399, 1).neededScaleDenominator, 4)
    XCTAssertEqual(viewport(3200, 1).neededScaleDenominator, 4)
    XCTAssertEqual(viewport(3199, 1).neededScaleDenominator, 2)
    XCTAssertEqual(viewport(1600, 1).neededScaleDenominator, 2)
    XCTAssertEqual(viewport(1599, 1).neededScaleDenominator, 1)
    XCTAssertEqual(viewport(10, 1).neededScaleDenominator, 1)
    var view = viewport(8000, 6000)  // fit 0.08
    XCTAssertEqual(view.neededScaleDenominator, 8)
    view.zoomIn()
    view.zoomIn()  // 0.16
    XCTAssertEqual(view.neededScaleDenominator, 4)
    view.toggleActualSize()
    view.toggleActualSize()
    XCTAssertEqual(view.neededScaleDenominator, 1)
  }

  func testSourceInADecodeOfAnotherSizeCoversTheSameArea() {
    var view = viewport(4000, 3000)
    view.toggleActualSize()
    view.pan(dx: -100, dy: 100)  // 0, 2520, 800×480
    XCTAssertEqual(
      view.source(in: PixelSize(width: 500, height: 375)), PixelRect(x: 0, y: 315, width: 100, height: 60))
    XCTAssertEqual(
      view.source(in: PixelSize(width: 333, height: 250)), PixelRect(x: 0, y: 210, width: 67, height: 40))
    XCTAssertEqual(
      view.source(in: PixelSize(width: 1, height: 1)), PixelRect(x: 0, y: 0, width: 1, height: 1))
    view.fit()
    XCTAssertEqual(
      view.source(in: PixelSize(width: 320, height: 240)), PixelRect(x: 0, y: 0, width: 320, height: 240))
  }

  /// Many sizes and random key presses (a fixed seed): the placement is always inside the
  /// image and the area, never empty, centred where the photo is smaller than the area,
  /// fills the area where there is more image, and keeps the aspect within rounding.
  func testPlacementStaysValidUnderRandomSizesAndKeys() {
    var random = SeededGenerator(seed: 10)
    let lengths = [1, 2, 3, 7, 640, 1001, 4000, 5000, 12_000]
    for _ in 0..<400 {
      let image = PixelSize(
        width: Bool.random(using: &random)
          ? lengths.randomElement(using: &random)! : Int.random(in: 1...6000, using: &random),
        height: Bool.random(using: &random)
          ? lengths.randomElement(using: &random)! : Int.random(in: 1...6000, using: &random))
      var view = Viewport(
        image: image, columns: Int.random(in: 1...300, using: &random),
        rows: Int.random(in: 1...100, using: &random),
        cell: PixelSize(
          width: Int.random(in: 1...30, using: &random), height: Int.random(in: 1...60, using: &random)))
      check(view)
      for _ in 0..<40 {
        switch Int.random(in: 0..<7, using: &random) {
        case 0: view.zoomIn()
        case 1: view.zoomOut()
        case 2: view.toggleActualSize()
        case 3: view.fit()
        case 4:
          view.resize(
            columns: Int.random(in: 0...300, using: &random), rows: Int.random(in: 0...100, using: &random),
            cell: PixelSize(
              width: Int.random(in: 0...30, using: &random), height: Int.random(in: 0...60, using: &random)))
        default:
          view.pan(dx: Int.random(in: -3...3, using: &random), dy: Int.random(in: -3...3, using: &random))
        }
        check(view)
        if (testRun?.failureCount ?? 0) > 0 { return }
      }
    }
  }

  func check(_ view: Viewport, file: StaticString = #filePath, line: UInt = #line) {
    let placed = view.placement
    let context = "\(view)"
    XCTAssertGreaterThanOrEqual(view.scale, view.minimumScale, context, file: file, line: line)
    XCTAssertLessThanOrEqual(view.scale, view.maximumScale, context, file: file, line: line)
    for (source, start, imageLength, cells, first, areaCells, cellLength) in [
      (
        placed.source.width, placed.source.x, view.image.width, placed.columns, placed.column, view.columns,
        view.cell.width
      ),
      (
        placed.source.height, placed.source.y, view.image.height, placed.rows, placed.row, view.rows,
        view.cell.height
      ),
    ] {
      XCTAssertGreaterThanOrEqual(source, 1, context, file: file, line: line)
      XCTAssertGreaterThanOrEqual(start, 0, context, file: file, line: line)
      XCTAssertLessThanOrEqual(start + source, imageLength, context, file: file, line: line)
      XCTAssertGreaterThanOrEqual(cells, 1, context, file: file, line: line)
      XCTAssertGreaterThanOrEqual(first, 0, context, file: file, line: line)
      XCTAssertLessThanOrEqual(first + cells, areaCells, context, file: file, line: line)
      if source < imageLength {
        XCTAssertEqual(cells, areaCells, "more image, yet a margin: \(context)", file: file, line: line)
      } else {
        XCTAssertEqual(first, (areaCells - cells) / 2, "not centred: \(context)", file: file, line: line)
      }
      // Whole cells and whole pixels: at most a cell or a (scaled) pixel apart.
      let error = abs(Double(cells * cellLength) - Double(source) * view.scale)
      XCTAssertLessThanOrEqual(
        error, max(Double(cellLength), view.scale) * (1 + 1e-9), "aspect: \(context)", file: file, line: line)
    }
    let decoded = PixelSize(
      width: max(1, view.image.width / view.neededScaleDenominator),
      height: max(1, view.image.height / view.neededScaleDenominator))
    let source = view.source(in: decoded)
    XCTAssertTrue(
      source.x >= 0 && source.y >= 0 && source.width >= 1 && source.height >= 1
        && source.x + source.width <= decoded.width && source.y + source.height <= decoded.height,
      "\(source) in \(decoded): \(context)", file: file, line: line)
  }
}
