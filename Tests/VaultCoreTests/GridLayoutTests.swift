import XCTest

@testable import VaultCore

final class GridLayoutTests: XCTestCase {
  func testCellWidthFollowsAgonysFormula() throws {
    // (width − (n − 1)·gutter − 2·margin) / n with gutter 2 and margin 1.
    XCTAssertEqual(try GridLayout(columns: 80, perRow: 4).cellWidth, (80 - 3 * 2 - 2) / 4)
    XCTAssertEqual(try GridLayout(columns: 80, perRow: 1).cellWidth, 78)
    XCTAssertEqual(try GridLayout(columns: 100, perRow: 3).cellWidth, (100 - 4 - 2) / 3)
    XCTAssertEqual(try GridLayout(columns: 237, perRow: 10).cellWidth, (237 - 18 - 2) / 10)
    XCTAssertEqual(try GridLayout(columns: 40, perRow: 2, gutter: 4, margin: 0).cellWidth, 18)
  }

  func testCellsStartAfterMarginAndGutters() throws {
    let layout = try GridLayout(columns: 80, perRow: 4)
    XCTAssertEqual((0..<4).map(layout.cellStart), [1, 1 + 18 + 2, 1 + 2 * 20, 1 + 3 * 20])
    XCTAssertLessThanOrEqual(layout.cellStart(3) + layout.cellWidth + layout.margin, 80)
  }

  func testTooManyCellsForTheWidthIsAnErrorWithAHint() {
    XCTAssertThrowsError(try GridLayout(columns: 40, perRow: 10)) { error in
      XCTAssertTrue("\(error)".contains("--per-row 4"), "\(error)")
    }
    XCTAssertThrowsError(try GridLayout(columns: 80, perRow: 0))
    XCTAssertEqual(GridLayout.maximumPerRow(columns: 40), 4)
    XCTAssertNoThrow(try GridLayout(columns: 40, perRow: 4))
  }
}

final class PhotoSelectorTests: XCTestCase {
  func testNumbersAndRanges() throws {
    XCTAssertEqual(try PhotoSelector.positions(["2", "5-7"], count: 10), [1, 4, 5, 6])
    XCTAssertEqual(try PhotoSelector.positions(["3", "1-3"], count: 3), [2, 0, 1])
    XCTAssertEqual(try PhotoSelector.positions(["4-4"], count: 4), [3])
  }

  func testBadSelectorsAreRefused() {
    for bad in ["", "0", "-1", "a", "3-", "-", "5-3", "1-2-3", "１"] {
      XCTAssertThrowsError(try PhotoSelector.positions([bad], count: 10), bad)
    }
    XCTAssertThrowsError(try PhotoSelector.positions(["11"], count: 10)) { error in
      XCTAssertEqual(error as? VaultError, .indexOutOfRange(index: 11, count: 10))
    }
    XCTAssertThrowsError(try PhotoSelector.positions(["9-12"], count: 10))
  }
}

final class DisplayWidthTests: XCTestCase {
  func testWideCharactersCountTwice() {
    XCTAssertEqual(DisplayWidth.of("abc"), 3)
    XCTAssertEqual(DisplayWidth.of("写真"), 4)
    XCTAssertEqual(DisplayWidth.of("😀"), 2)
    XCTAssertEqual(DisplayWidth.of("e\u{301}"), 1)
  }

  func testTruncateAndPadByColumns() {
    XCTAssertEqual(DisplayWidth.truncate("IMG_0001.jpg", to: 8), "IMG_000…")
    XCTAssertEqual(DisplayWidth.truncate("写真写真.jpg", to: 6), "写真…")
    XCTAssertEqual(DisplayWidth.pad("ab", to: 4), "ab  ")
    XCTAssertEqual(DisplayWidth.of(DisplayWidth.pad("写真写真.jpg", to: 7)), 7)
  }
}
