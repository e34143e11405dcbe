import XCTest

@testable import VaultCore
@testable import VaultTerminal

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

  /// The misfit says what fits; the CLI words the hint with its flag (`GridLayout.forOption`).
  func testTooManyCellsForTheWidthIsAMisfitThatSaysWhatFits() {
    XCTAssertThrowsError(try GridLayout(columns: 40, perRow: 10)) { error in
      XCTAssertEqual(
        error as? GridLayout.Misfit, .tooMany(perRow: 10, columns: 40, cellWidth: 2, mostThatFit: 4))
      XCTAssertFalse("\(error)".contains("--"), "VaultTerminal names no flag: \(error)")
    }
    XCTAssertThrowsError(try GridLayout(columns: 80, perRow: 0)) {
      XCTAssertEqual($0 as? GridLayout.Misfit, .noCells)
    }
    XCTAssertEqual(GridLayout.maximumPerRow(columns: 40), 4)
    XCTAssertNoThrow(try GridLayout(columns: 40, perRow: 4))
  }
}

final class PhotoSelectorTests: XCTestCase {
  /// The positions `arguments` choose in a space of `count` photos named by number only.
  func positions(_ arguments: [String], count: Int) throws -> [Int] {
    try PhotoSelector.positions(PhotoSelector.parse(arguments), ids: (0..<count).map { _ in "" })
  }

  let ids = ["aaaaaa0000", "aaaaab1111", "123456ffff", "bbbbbb2222", "cccccc3333"]

  func testNumbersRangesListsAndOpenRanges() throws {
    XCTAssertEqual(try positions(["2", "5-7"], count: 10), [1, 4, 5, 6])
    XCTAssertEqual(try positions(["3", "1-3"], count: 3), [2, 0, 1])
    XCTAssertEqual(try positions(["4-4"], count: 4), [3])
    XCTAssertEqual(try positions(["2-3,9"], count: 10), [1, 2, 8])
    XCTAssertEqual(try positions(["8-"], count: 10), [7, 8, 9])
    XCTAssertEqual(try positions(["--", "1"], count: 2), [0])
  }

  func testIdsAndUniquePrefixes() throws {
    let terms = try PhotoSelector.parse(["bbbbbb", "CCCCCC3333", "aaaaab"])
    XCTAssertEqual(try PhotoSelector.positions(terms, ids: ids), [3, 4, 1])
    XCTAssertThrowsError(try PhotoSelector.positions(PhotoSelector.parse(["aaaaa"]), ids: ids), "too short")
    XCTAssertThrowsError(
      try PhotoSelector.positions(PhotoSelector.parse(["aaaaaa0"]), ids: ids + ["aaaaaa0001"])
    ) {
      XCTAssertEqual($0 as? VaultError, .ambiguousPhotoID(prefix: "aaaaaa0", matches: 2))
    }
    XCTAssertThrowsError(try PhotoSelector.positions(PhotoSelector.parse(["dddddd"]), ids: ids)) {
      XCTAssertEqual($0 as? VaultError, .ambiguousPhotoID(prefix: "dddddd", matches: 0))
    }
    // Digits only: an id prefix when no photo has that number; starting with 0, always.
    XCTAssertEqual(try PhotoSelector.positions(PhotoSelector.parse(["123456"]), ids: ids), [2])
    XCTAssertThrowsError(try PhotoSelector.positions(PhotoSelector.parse(["000003"]), ids: ids)) {
      XCTAssertEqual($0 as? VaultError, .ambiguousPhotoID(prefix: "000003", matches: 0), "never photo 3")
    }
  }

  func testSixDigitsThatAreBothANumberAndAnIdPrefixAreRefused() throws {
    var many = (0..<100_001).map { String(format: "f%09x", $0) }
    XCTAssertEqual(try PhotoSelector.positions(PhotoSelector.parse(["100001"]), ids: many), [100_000])
    many[7] = "100001abcd"
    XCTAssertThrowsError(try PhotoSelector.positions(PhotoSelector.parse(["100001"]), ids: many)) {
      XCTAssertEqual($0 as? VaultError, .numberOrID("100001"))
    }
  }

  func testBadChoicesGetPreciseErrors() {
    for bad in ["", "0", "a", "-", "1-2-3", "１", "2,", "--all"] {
      XCTAssertThrowsError(try PhotoSelector.parse([bad]), bad)
    }
    XCTAssertThrowsError(try PhotoSelector.parse(["7-5"])) {
      XCTAssertEqual("\($0)", "'7-5': the range runs backwards; write 5-7")
    }
    XCTAssertThrowsError(try PhotoSelector.parse(["-1"])) {
      XCTAssertEqual("\($0)", "'-1': photos are numbered from 1; a range is written 2-5")
    }
    XCTAssertThrowsError(try positions(["11"], count: 10)) { error in
      XCTAssertEqual(error as? VaultError, .indexOutOfRange(index: 11, count: 10))
    }
    XCTAssertThrowsError(try positions(["9-12"], count: 10))
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
