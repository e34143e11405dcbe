import Foundation
import XCTest

@testable import VaultCore
@testable import VaultTerminal

final class TerminalSafeTextTests: XCTestCase {
  let hostile = "a\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{1B}[31mred\nsecond\r\u{202E}gpj.exe\u{85}\u{7F}.jpg"

  func testControlsAndBidiOverridesAreShownEscaped() {
    let shown = TerminalSafeText.escaped(hostile)
    XCTAssertEqual(
      shown, "a\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31mred\\nsecond\\r\\u202egpj.exe\\x85\\x7f.jpg")
    XCTAssertFalse(shown.unicodeScalars.contains(where: TerminalSafeText.isUnsafe))
    XCTAssertEqual(TerminalSafeText.escaped(shown), shown, "escaping twice changes nothing")
    for scalar in [0x00, 0x09, 0x1F, 0x7F, 0x80, 0x9F, 0x202A, 0x202E, 0x2066, 0x2069, 0x2028] {
      XCTAssertTrue(TerminalSafeText.isUnsafe(Unicode.Scalar(UInt32(scalar))!), String(scalar, radix: 16))
    }
  }

  func testOrdinaryNamesAreLeftAlone() {
    for name in ["IMG_0001.JPG", "写真 2024.png", "café.jpg", "😀.png", "a\\b.jpg", "e\u{301}.jpg"] {
      XCTAssertEqual(TerminalSafeText.escaped(name), name)
    }
  }

  func testJSONKeepsTheExactValueAndPrintsSafely() throws {
    let encoded = String(decoding: try JSONEncoder().encode([hostile]), as: UTF8.self)
    let safe = TerminalSafeText.json(encoded)
    XCTAssertFalse(safe.unicodeScalars.contains(where: TerminalSafeText.isUnsafe))
    XCTAssertEqual(try JSONDecoder().decode([String].self, from: Data(safe.utf8)), [hostile])
    XCTAssertEqual(TerminalSafeText.json("[\n  1\n]"), "[\n  1\n]", "JSON's own white space stays")
  }

  /// Characters terminals draw two columns wide beyond the CJK blocks: Tangut (the
  /// security review's name wrapped the status line), emoji of the BMP and of later planes.
  func testWideCharactersOutsideCJKTakeTwoColumns() {
    for character in [
      "\u{17000}", "\u{18800}", "\u{1B000}", "\u{231A}", "\u{2705}", "\u{1F680}", "\u{1FA90}",
    ] {
      XCTAssertEqual(DisplayWidth.of(character), 2, character.unicodeScalars.first!.value.description)
    }
    XCTAssertEqual(DisplayWidth.of("\u{2714}"), 1, "✔ is narrow")
  }

  func testDisplayWidthCountsTheEscapedForm() {
    let layout = try! GridLayout(columns: 100, perRow: 4)
    let label = layout.label(number: 1, name: "\u{1B}[2Jab", selected: false)
    XCTAssertEqual(label, "1 \\x1b[2Jab")
    XCTAssertEqual(DisplayWidth.of(label), label.count)
  }
}

final class ProgressLineTests: XCTestCase {
  func testTheLineNeverFillsTheTerminalWidth() {
    for columns in 1...200 {
      for done in [0, 7, 200] {
        let line = ProgressLine.text(
          done: done, total: 200, label: "photos/写真 \u{1B}[31m very long name.jpg", columns: columns)
        XCTAssertLessThan(DisplayWidth.of(line), columns, "\(columns) columns: \(line)")
        XCTAssertFalse(line.contains("\u{1B}"), line)
      }
    }
  }

  func testABarWhereItFitsElseACounter() {
    XCTAssertEqual(
      ProgressLine.text(done: 5, total: 10, label: "a.jpg", columns: 80),
      "[###############---------------] 5/10 a.jpg")
    XCTAssertEqual(ProgressLine.text(done: 5, total: 10, label: "a.jpg", columns: 20), "[######------] 5/10")
    XCTAssertEqual(ProgressLine.text(done: 5, total: 10, label: "a.jpg", columns: 12), "5/10 a.jpg")
    XCTAssertEqual(ProgressLine.text(done: 5, total: 10, label: "a.jpg", columns: 8), "5/10")
    XCTAssertEqual(ProgressLine.text(done: 5, total: 10, label: "a.jpg", columns: 3), "")
  }
}

final class PhotoTableTests: XCTestCase {
  func model(_ number: Int, name: String, bytes: Int64) -> (index: Int, photo: PhotoModel) {
    let id = String(format: "%032x", number)
    let record = PhotoRecord(
      id: BlobID(hex: id)!, name: name, bytes: bytes, format: .jpeg, width: 4000, height: 3000,
      orientation: 1,
      modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0), contentHash: id)
    return (
      number - 1,
      PhotoModel(isSelected: false, record: record)
    )
  }

  func testColumnsFitTheirContentNotTheTerminal() {
    let photos = [model(1, name: "a.jpg", bytes: 12), model(12, name: "IMG_0002.jpg", bytes: 3_400_000)]
    let wide = PhotoListing.table(photos, names: ShownFileNames(), columns: 160)
    let narrow = PhotoListing.table(photos, names: ShownFileNames(), columns: 80)
    XCTAssertEqual(wide, narrow, "a wider terminal does not stretch the table")
    XCTAssertEqual(Set(wide.map { DisplayWidth.of($0) }).count, 1, "columns line up: \(wide)")
    XCTAssertTrue(wide[0].hasPrefix(" 1 [ ] a.jpg        4000×3000   12 B "), wide[0])
  }

  func testANarrowTerminalGivesUpTheTimeThenTheDate() {
    let photos = [model(1, name: "IMG_0001.jpg", bytes: 3_400_000)]
    let last = { (columns: Int) -> (line: String, word: String) in
      let line = PhotoListing.table(photos, names: ShownFileNames(), columns: columns)[0]
      return (line, String(line.split(separator: " ").last ?? ""))
    }
    XCTAssertTrue(last(80).word.contains(":"), "the time: \(last(80).line)")
    XCTAssertTrue(last(50).word.contains("-") && !last(50).word.contains(":"), "the date: \(last(50).line)")
    XCTAssertEqual(last(40).word, "MB", last(40).line)
    for columns in [80, 50, 40] { XCTAssertLessThan(DisplayWidth.of(last(columns).line), columns) }
  }

  func testDatesTakenShowAsTheCameraReadThemAndImportDatesAreMarked() throws {
    var dated = model(1, name: "dated.jpg", bytes: 1)
    dated.photo.record.taken = CaptureTimeTextTests.time(
      "2024-06-01 14:03:22", nanoseconds: 250_000_000, offset: 120)
    dated.photo.record.cameraMake = "Canon"
    dated.photo.record.cameraModel = "Canon EOS R5"
    let undated = model(2, name: "undated.jpg", bytes: 1)
    let imported = PhotoListing.date(undated.photo.record.importedAt)
    let table = PhotoListing.table([dated, undated], names: ShownFileNames(), columns: 120)
    XCTAssertTrue(table[0].hasSuffix(" 2024-06-01 14:03"), table[0])
    XCTAssertTrue(table[1].hasSuffix(" " + imported + "*"), table[1])
    let grid = PhotoListing.grid(
      [[dated, undated]], names: ShownFileNames(), layout: try GridLayout(columns: 80, perRow: 2))
    XCTAssertTrue(
      grid[4].contains("2024-06-01 ") && grid[4].hasSuffix(String(imported.prefix(10)) + "*"), "\(grid)")
    let json =
      try JSONSerialization.jsonObject(
        with: Data(try PhotoListing.json([dated, undated], names: ShownFileNames()).utf8))
      as! [[String: Any]]
    XCTAssertEqual(json[0]["taken"] as? String, "2024-06-01T14:03:22.25+02:00")
    XCTAssertEqual(json[0]["cameraMake"] as? String, "Canon")
    XCTAssertEqual(json[0]["cameraModel"] as? String, "Canon EOS R5")
    XCTAssertEqual(PhotoListing.camera(dated.photo.record), "Canon EOS R5")
    for key in ["taken", "cameraMake", "cameraModel"] { XCTAssertNil(json[1][key], key) }
  }

  func testLongNamesAreCutToTheTerminal() {
    let photos = [model(1, name: String(repeating: "long", count: 50) + ".jpg", bytes: 1)]
    let line = PhotoListing.table(photos, names: ShownFileNames(), columns: 80)[0]
    XCTAssertLessThan(DisplayWidth.of(line), 80)
    XCTAssertTrue(line.contains("…"))
  }
}
