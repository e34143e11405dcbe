import Foundation
import XCTest

/// Imports the whole range of real files through the built binary: the PngSuite
/// conformance set and the JPEG variants among the fixtures.
final class ImportRangeTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  /// The PngSuite, in the repository under its licence (Fixtures/pngsuite/README.md).
  static let pngSuite = fixturesPath + "/pngsuite"

  func testEveryValidPngSuiteImageImportsAndEveryCorruptOneIsRefused() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.pngSuite).filter {
      $0.hasSuffix(".png")
    }
    let corrupt = Set(names.filter { $0.hasPrefix("x") })
    let valid = names.filter { !$0.hasPrefix("x") }
    XCTAssertGreaterThan(valid.count, 150)
    // Only the images: the folder also holds the suite's README and licence.
    let run = try vault.run(["add"] + names.sorted().map { Self.pngSuite + "/" + $0 })
    XCTAssertEqual(run.status, 1)
    // Byte-identical files in the suite (e.g. basn6a08 and bgan6a08) count as duplicates.
    let distinct = Set(try valid.map { sha256(try fileBytes(Self.pngSuite + "/" + $0)) }).count
    XCTAssertTrue(
      run.stdout.contains(
        "added \(photoCount(distinct)), skipped \(valid.count - distinct) duplicates, failed \(corrupt.count)"
      ),
      run.stdout)
    let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error: '") }
    XCTAssertEqual(errors.count, corrupt.count, run.stderr)
    for name in corrupt {
      XCTAssertEqual(errors.filter { $0.contains("/\(name)'") }.count, 1, "\(name) is refused on one line")
    }
    // Sizes as the PNG header declares them, and thumbnails of the same size (all are small).
    let entries = try vault.listJSON()
    for entry in entries {
      let name = entry["name"] as! String
      let header = try fileBytes(Self.pngSuite + "/" + name)
      let width = header[16..<20].reduce(0) { $0 << 8 | Int($1) }
      let height = header[20..<24].reduce(0) { $0 << 8 | Int($1) }
      XCTAssertEqual([entry["width"] as? Int, entry["height"] as? Int], [width, height], name)
    }
    let thumbs = try vault.run(["export", "--all", "--thumbs", "--to", "thumbs"])
    XCTAssertEqual(thumbs.status, 0, thumbs.stderr)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder + "/thumbs").count, entries.count)
  }

  func testJPEGVariantsImportWithTheirSizesAndBrokenOnesAreRefused() throws {
    let photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    let variants = try FileManager.default.contentsOfDirectory(atPath: fixturesPath).filter {
      $0.hasSuffix(".jpg")
    }
    for name in variants + ["bad/corrupt.jpg", "bad/bomb.jpg", "bad/bomb.png"] {
      try FileManager.default.copyItem(
        atPath: fixturesPath + "/" + name, toPath: photos + "/" + (name as NSString).lastPathComponent)
    }
    let run = try vault.run(["add", photos])
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(
      run.stdout.contains(
        "added \(photoCount(variants.count)), skipped 0 duplicates, failed 3, 2 with warnings"),
      run.stdout)
    XCTAssertTrue(
      run.stderr.contains("bomb.png': image of 100000×100000 pixels is over the limit of 200 megapixels"),
      run.stderr)
    XCTAssertTrue(run.stderr.contains("bomb.jpg': image of 65000×65000 pixels is over the limit"), run.stderr)
    XCTAssertTrue(run.stderr.contains("corrupt.jpg': cannot decode image"), run.stderr)
    for name in ["truncated.jpg", "corrupt-data.jpg"] {
      XCTAssertTrue(run.stderr.contains("warning: '\(photos)/\(name)'"), run.stderr)
    }
    let sizes = Dictionary(
      uniqueKeysWithValues: try vault.listJSON().map {
        ($0["name"] as! String, [$0["width"] as! Int, $0["height"] as! Int])
      })
    for (name, size) in sizes where name.hasPrefix("orientation-") { XCTAssertEqual(size, [48, 32], name) }
    for (name, size) in sizes where name.hasPrefix("quad-") { XCTAssertEqual(size, [64, 48], name) }
    XCTAssertEqual(sizes["truncated.jpg"], [160, 120])
    let orientations = Dictionary(
      uniqueKeysWithValues: try vault.listJSON().map {
        ($0["name"] as! String, $0["orientation"] as! Int)
      })
    for n in 1...8 { XCTAssertEqual(orientations["orientation-\(n).jpg"], n) }

    // A lower limit refuses what the default lets in; a bad value is a usage error.
    let strict = VaultRunner(vault: folder + "/strict", workingDirectory: folder)
    XCTAssertEqual(try strict.run(["init", "--kdf", "interactive"]).status, 0)
    let limited = try strict.run(["add", "--max-megapixels", "1", fixturesPath + "/photo.jpg"])
    XCTAssertEqual(limited.status, 0, "64×48 is far below 1 megapixel")
    XCTAssertEqual(try strict.run(["add", "--max-megapixels", "0", photos]).status, 64)
  }

}
