import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// 23 photos, 5 a row: rows 0...4, the last holding indexes 20, 21, 22.
final class GridCursorTests: XCTestCase {
  let count = 23

  func testArrowsGoInReadingOrderAndStopAtTheEnds() {
    var cursor = GridCursor(perRow: 5)
    cursor.move(dx: -1, dy: 0, count: count)
    XCTAssertEqual(cursor.index, 0)
    cursor.move(dx: 0, dy: -1, count: count)
    XCTAssertEqual(cursor.index, 0)
    cursor.index = 4
    cursor.move(dx: 1, dy: 0, count: count)
    XCTAssertEqual(cursor.index, 5, "→ at a row's end goes on to the next row")
    cursor.move(dx: -1, dy: 0, count: count)
    XCTAssertEqual(cursor.index, 4)
    cursor.move(dx: 0, dy: 1, count: count)
    XCTAssertEqual(cursor.index, 9)
    cursor.index = 22
    cursor.move(dx: 1, dy: 0, count: count)
    XCTAssertEqual(cursor.index, 22)
    cursor.move(dx: 0, dy: 1, count: count)
    XCTAssertEqual(cursor.index, 22, "↓ on the last row stays")
    cursor.move(dx: 0, dy: -1, count: count)
    XCTAssertEqual(cursor.index, 17)
  }

  func testDownIntoAShorterLastRowLandsOnItsLastPhoto() {
    var cursor = GridCursor(index: 19, perRow: 5)
    cursor.move(dx: 0, dy: 1, count: count)
    XCTAssertEqual(cursor.index, 22)
    cursor.move(dx: 0, dy: -1, count: count)
    XCTAssertEqual(cursor.index, 17, "up keeps the column it landed in")
  }

  func testNoPhotosKeepsTheCursorAtZero() {
    var cursor = GridCursor(index: 7, perRow: 5)
    cursor.move(dx: 1, dy: 1, count: 0)
    XCTAssertEqual(cursor.index, 0)
    cursor.page(1, visibleRows: 3, count: 0)
    cursor.end(count: 0)
    XCTAssertEqual(cursor.index, 0)
    XCTAssertEqual(cursor.visibleIndexes(visibleRows: 3, count: 0), 0..<0)
  }

  func testScrollingKeepsTheCursorRowVisible() {
    var cursor = GridCursor(perRow: 5)
    cursor.scrollToCursor(visibleRows: 2)
    XCTAssertEqual(cursor.firstVisibleRow, 0)
    XCTAssertEqual(cursor.visibleIndexes(visibleRows: 2, count: count), 0..<10)
    cursor.move(dx: 0, dy: 2, count: count)
    cursor.scrollToCursor(visibleRows: 2)
    XCTAssertEqual(cursor.firstVisibleRow, 1, "row 2 is the bottom visible row")
    XCTAssertEqual(cursor.visibleIndexes(visibleRows: 2, count: count), 5..<15)
    cursor.end(count: count)
    cursor.scrollToCursor(visibleRows: 2)
    XCTAssertEqual(cursor.firstVisibleRow, 3)
    XCTAssertEqual(cursor.visibleIndexes(visibleRows: 2, count: count), 15..<23)
    cursor.move(dx: 0, dy: -1, count: count)
    cursor.scrollToCursor(visibleRows: 2)
    XCTAssertEqual(cursor.firstVisibleRow, 3, "row 3 is still visible")
    cursor.home()
    XCTAssertEqual(cursor.index, 0)
    XCTAssertEqual(cursor.firstVisibleRow, 0)
  }

  func testPageMovesCursorAndViewTogetherAndStopsAtTheEnds() {
    var cursor = GridCursor(index: 6, perRow: 5)  // row 1, column 1
    cursor.page(1, visibleRows: 2, count: count)
    XCTAssertEqual(cursor.index, 16)
    XCTAssertEqual(cursor.firstVisibleRow, 2)
    cursor.page(1, visibleRows: 2, count: count)
    XCTAssertEqual(cursor.index, 21, "the last row, same column")
    XCTAssertEqual(cursor.firstVisibleRow, 3, "the view stops where the last row is at the bottom")
    cursor.page(1, visibleRows: 2, count: count)
    XCTAssertEqual(cursor.index, 21)
    XCTAssertEqual(cursor.firstVisibleRow, 3)
    cursor.page(-1, visibleRows: 2, count: count)
    XCTAssertEqual(cursor.index, 11)
    XCTAssertEqual(cursor.firstVisibleRow, 1)
    cursor.page(-1, visibleRows: 2, count: count)
    XCTAssertEqual(cursor.index, 1)
    XCTAssertEqual(cursor.firstVisibleRow, 0)
    cursor.page(-1, visibleRows: 2, count: count)
    XCTAssertEqual(cursor.index, 1)
    XCTAssertEqual(cursor.firstVisibleRow, 0)
  }

  func testPageOnAGridShorterThanTheScreenStaysOnTheFirstRow() {
    var cursor = GridCursor(index: 2, perRow: 5)
    cursor.page(1, visibleRows: 10, count: count)
    XCTAssertEqual(cursor.index, 22)
    XCTAssertEqual(cursor.firstVisibleRow, 0)
    XCTAssertEqual(cursor.visibleIndexes(visibleRows: 10, count: count), 0..<23)
  }

  func testAfterDeletionsTheCursorAndViewComeBackIntoTheGrid() {
    var cursor = GridCursor(perRow: 5)
    cursor.end(count: count)
    cursor.scrollToCursor(visibleRows: 1)
    XCTAssertEqual(cursor.firstVisibleRow, 4)
    cursor.clamp(count: 7)
    cursor.scrollToCursor(visibleRows: 1)
    XCTAssertEqual(cursor.index, 6)
    XCTAssertEqual(cursor.firstVisibleRow, 1)
    XCTAssertEqual(cursor.visibleIndexes(visibleRows: 1, count: 7), 5..<7)
  }
}
