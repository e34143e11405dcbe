import Foundation
import VaultCore
import XCTest

/// HEIC through the built binary, as an iPhone's photos arrive: added in a batch beside a
/// JPEG, listed with their sizes as shown, thumbnails upright, drawn by `show` and the
/// grid, exported bit for bit; a broken one is named on one line and changes nothing.
final class HEICImportTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var photos = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
  }

  /// Copies fixtures into the photos folder; returns their paths there.
  func copy(_ names: [String], renaming: [String: String] = [:]) throws -> [String] {
    try names.map { name in
      let path = photos + "/" + (renaming[name] ?? (name as NSString).lastPathComponent)
      try FileManager.default.copyItem(atPath: fixturesPath + "/" + name, toPath: path)
      return path
    }
  }

  func listJSON() throws -> [String: [String: Any]] {
    let entries = try vault.listJSON()
    return Dictionary(uniqueKeysWithValues: entries.map { ($0["name"] as! String, $0) })
  }

  /// The HEIC fixtures that show the 48×32 red, green, blue and white quadrants.
  let quadrantFixtures =
    (1...8).map { "orientation-\($0).heic" } + ["orientation-6-exif.heic", "two-images.heic"]

  func testHEICImportsUprightBesideAJPEGAndExportsBitForBit() throws {
    // AVIF, AV1 in HEIF, is imported beside them, through libavif.
    let good = quadrantFixtures + ["alpha.heic", "odd-size.heic", "quad-12mp.heic", "photo.jpg", "quad.avif"]
    _ = try copy(good + ["bad/truncated.heic"], renaming: ["bad/truncated.heic": "broken.heic"])
    let run = try vault.run(["add", "--verbose", photos])
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(
      run.stdout.contains("added \(photoCount(good.count)), skipped 0 duplicates, failed 1"), run.stdout)
    // One line names the broken file and why; nothing else is named.
    XCTAssertEqual(
      run.stderr.split(separator: "\n").filter { $0.hasPrefix("error: '") },
      [
        "error: '\(photos)/broken.heic': cannot decode image: Invalid input: Unexpected end of file: Extent in iloc box references data outside of file bounds (points to file position 398)"
      ])

    let entries = try listJSON()
    XCTAssertEqual(Set(entries.keys), Set(good))
    func size(_ name: String) -> [Int] {
      [entries[name]?["width"] as? Int ?? 0, entries[name]?["height"] as? Int ?? 0]
    }
    for name in quadrantFixtures + ["alpha.heic"] { XCTAssertEqual(size(name), [48, 32], name) }
    XCTAssertEqual(size("odd-size.heic"), [45, 29])
    XCTAssertEqual(size("quad-12mp.heic"), [4032, 3024])
    XCTAssertEqual(size("quad.avif"), [64, 48])
    XCTAssertEqual(entries["quad.avif"]?["format"] as? String, "avif")
    for name in good where name.hasSuffix(".heic") {
      XCTAssertEqual(entries[name]?["format"] as? String, "heic", name)
      // libheif applied irot and imir: nothing must turn the pixels again.
      XCTAssertEqual(entries[name]?["orientation"] as? Int, 1, name)
    }

    try vault.assertExportsBitForBit(good, from: photos, uprightThumbnails: quadrantFixtures)
  }

  func testABrokenHEICChangesNothing() throws {
    let added = try vault.run(["add"] + copy(["orientation-6.heic"]))
    XCTAssertEqual(added.status, 0, added.stderr)
    let before = try snapshot(vault.vault)
    for name in ["truncated.heic", "bomb.heic"] {
      let run = try vault.run(["add"] + copy(["bad/" + name]))
      XCTAssertEqual(run.status, 1, name)
      let lines = run.stderr.split(separator: "\n")
      XCTAssertEqual(lines.count, 2, run.stderr)
      XCTAssertTrue(lines.first?.hasPrefix("error: '\(photos)/\(name)': ") == true, run.stderr)
      XCTAssertEqual(lines.last, "error: 1 file could not be imported")
      XCTAssertEqual(try snapshot(vault.vault), before, name)
    }
  }

  func testShowAndTheGridDrawAHEICUpright() throws {
    // Stored on its side, turned by irot, with an EXIF orientation that says the same.
    let added = try vault.run(["add"] + copy(["orientation-6-exif.heic"]))
    XCTAssertEqual(added.status, 0, added.stderr)
    let colour = ["TERM": "xterm-256color", "COLORTERM": "truecolor"]
    let shown = try vault.run(
      ["show", "--mode", "symbols", "--width", "12", "--height", "4", "1"], environment: colour)
    XCTAssertEqual(shown.status, 0, shown.stderr)
    XCTAssertTrue(shown.stdout.hasSuffix("1 orientation-6-exif.heic  48×32\n"), shown.stdout)
    assertQuadrants(drawn: shown.stdout, "show")
    let grid = try vault.run(["list", "--mode", "symbols", "--per-row", "1"], environment: colour)
    XCTAssertEqual(grid.status, 0, grid.stderr)
    assertQuadrants(drawn: grid.stdout, "the grid")
  }

  /// The same quadrants in a picture drawn with truecolor symbols: its first line starts
  /// red and turns green, its last starts blue and turns white.
  func assertQuadrants(
    drawn output: String, _ what: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    let expression = try! NSRegularExpression(pattern: "[34]8;2;([0-9]+);([0-9]+);([0-9]+)")
    /// The pure colours a line's cells are drawn in, in order (R, G, B, W), mixed ones left out.
    func colours(_ text: String) -> [Character] {
      expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
        let rgb = (1...3).map { Int(text[Range(match.range(at: $0), in: text)!])! }
        switch rgb.map({ $0 > 200 ? 1 : $0 < 50 ? 0 : -1 }) {
        case [1, 0, 0]: return "R"
        case [0, 1, 0]: return "G"
        case [0, 0, 1]: return "B"
        case [1, 1, 1]: return "W"
        default: return nil
        }
      }
    }
    let picture = output.split(separator: "\n").map(String.init).filter { $0.contains("8;2;") }
    guard let top = picture.first.map(colours), let bottom = picture.last.map(colours) else {
      return XCTFail("\(what): nothing drawn in \(output)", file: file, line: line)
    }
    XCTAssertEqual(top.first, "R", "\(what): \(top)", file: file, line: line)
    XCTAssertTrue(top.contains("G") && !top.contains("B"), "\(what): \(top)", file: file, line: line)
    XCTAssertEqual(bottom.first, "B", "\(what): \(bottom)", file: file, line: line)
    XCTAssertTrue(bottom.contains("W") && !bottom.contains("R"), "\(what): \(bottom)", file: file, line: line)
  }
}
