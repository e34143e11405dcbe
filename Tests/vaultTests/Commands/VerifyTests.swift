import Foundation
import XCTest

/// `vault verify` and `vault verify --quick` on photos of several chunks: what each finds,
/// and that findings come out in the photos' order however the checks were spread over
/// the cores.
final class VerifyTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  /// The blob ids of the photos, by photo number (from 1).
  var ids: [Int: String] = [:]

  /// Where a blob's first chunk starts: after the 6-byte prefix and the 24-byte stream
  /// header (docs/FORMAT.md, "Blobs").
  let firstChunk = 30
  /// A sealed chunk: 64 KiB and its 17-byte tag.
  let sealedChunk = 65536 + 17

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  /// Adds `count` distinct photos, p01.jpg…, each photo.jpg followed by 256 KiB and its
  /// number (decoders stop at the end marker), so that each original spans five chunks.
  func addPhotos(_ count: Int) throws {
    let photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    let base = try fileBytes(fixturesPath + "/photo.jpg") + [UInt8](repeating: 0x5A, count: 256 << 10)
    for number in 1...count {
      let suffix = withUnsafeBytes(of: UInt32(number).bigEndian) { Array($0) }
      try writeBytes(base + suffix, to: photos + "/" + name(number))
    }
    let add = try vault.run(["add", "--quiet", photos])
    XCTAssertEqual(add.status, 0, add.stderr)
    let items = try vault.listJSON()
    XCTAssertEqual(items.count, count)
    for item in items {
      XCTAssertEqual(item["name"] as? String, name(item["index"] as! Int), "photos listed in their order")
      ids[item["index"] as! Int] = item["id"] as? String
    }
  }

  func name(_ number: Int) -> String { String(format: "p%02d.jpg", number) }

  func originalPath(_ number: Int) throws -> String { try vault.spaceFolder() + "/Photo/" + ids[number]! }
  func thumbnailPath(_ number: Int) throws -> String { try vault.spaceFolder() + "/Thumb/" + ids[number]! }

  /// Flips one bit of the file at `offset`.
  func damage(_ path: String, at offset: Int) throws {
    var bytes = try fileBytes(path)
    XCTAssertLessThan(offset, bytes.count)
    bytes[offset] ^= 0x04
    try writeBytes(bytes, to: path)
  }

  /// Damages photo `number`'s original inside its fourth chunk: only reading it through
  /// finds that.
  func damageDeepInside(_ number: Int) throws {
    try damage(try originalPath(number), at: firstChunk + 3 * sealedChunk + 1234)
  }

  /// The lines verify printed, the last (the summary) apart.
  func verify(_ arguments: [String], status: Int32 = 1, file: StaticString = #filePath, line: UInt = #line)
    throws -> (lines: [String], summary: String)
  {
    let run = try vault.run(["verify"] + arguments)
    XCTAssertEqual(run.status, status, run.stdout + run.stderr, file: file, line: line)
    let lines = run.stdout.split(separator: "\n").map(String.init)
    return (Array(lines.dropLast()), lines.last ?? "")
  }

  /// What verify says of photo `number`: ok, or the start of each problem it has, in order.
  func expected(_ number: Int, original: Bool = false, missingThumbnail: Bool = false) -> [String] {
    var lines: [String] = []
    if original { lines.append("damaged original: \(number) \(name(number)) (Photo/\(ids[number]!)): ") }
    if missingThumbnail {
      lines.append("missing thumbnail: \(number) \(name(number)) (Thumb/\(ids[number]!))")
    }
    return lines.isEmpty ? ["ok: \(number) \(name(number))"] : lines
  }

  func assertLines(
    _ lines: [String], start expected: [String], file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(lines.count, expected.count, lines.joined(separator: "\n"), file: file, line: line)
    for (found, start) in zip(lines, expected) {
      XCTAssertTrue(found.hasPrefix(start), "\(found) does not start with \(start)", file: file, line: line)
    }
  }

  func testQuickFindsDamageAtTheStartOfBlobsButNotDeepInsideAnOriginal() throws {
    try addPhotos(6)
    try damageDeepInside(2)
    try damage(try originalPath(3), at: 10)  // the stream header
    try damage(try originalPath(4), at: firstChunk + 100)  // the first chunk, holding the record
    try FileManager.default.removeItem(atPath: try thumbnailPath(5))
    try damage(try thumbnailPath(6), at: firstChunk + 100)

    let full = try verify([])
    assertLines(
      full.lines,
      start: expected(1) + expected(2, original: true) + expected(3, original: true)
        + expected(4, original: true) + expected(5, missingThumbnail: true)
        + ["damaged thumbnail: 6 p06.jpg (Thumb/\(ids[6]!)): "])
    XCTAssertTrue(
      full.lines.dropFirst().first?.hasSuffix("chunk 3 does not authenticate (changed, truncated or swapped)")
        == true, "\(full.lines)")
    XCTAssertEqual(full.summary, "6 photos checked: 5 problems")

    let quick = try verify(["--quick"])
    assertLines(
      quick.lines,
      start: expected(1) + expected(2) + expected(3, original: true) + expected(4, original: true)
        + expected(5, missingThumbnail: true) + ["damaged thumbnail: 6 p06.jpg (Thumb/\(ids[6]!)): "])
    // A changed stream header shows as a first chunk that does not authenticate.
    for line in quick.lines.dropFirst(2).prefix(2) {
      XCTAssertTrue(line.hasSuffix("chunk 0 does not authenticate (changed, truncated or swapped)"), line)
    }
    XCTAssertEqual(quick.summary, "6 photos checked quickly (headers only): 4 problems")
  }

  func testAQuickCheckOfAnIntactSpaceSaysItWasQuick() throws {
    try addPhotos(2)
    try damageDeepInside(1)
    let quick = try verify(["--quick", "--quiet"], status: 0)
    XCTAssertEqual(quick.lines, [])
    XCTAssertEqual(quick.summary, "2 photos checked quickly (headers only): all intact")
  }

  func testFindingsComeOutInPhotoOrderWithManyPhotos() throws {
    try addPhotos(40)
    for number in [3, 17, 18, 31, 40] { try damageDeepInside(number) }
    for number in [5, 22] { try damage(try originalPath(number), at: firstChunk + 5) }
    for number in [9, 17, 22] { try FileManager.default.removeItem(atPath: try thumbnailPath(number)) }

    let full = try verify([])
    assertLines(
      full.lines,
      start: (1...40).flatMap { number in
        expected(
          number, original: [3, 5, 17, 18, 22, 31, 40].contains(number),
          missingThumbnail: [9, 17, 22].contains(number))
      })
    XCTAssertEqual(full.summary, "40 photos checked: 10 problems")

    let quick = try verify(["--quick"])
    assertLines(
      quick.lines,
      start: (1...40).flatMap { number in
        expected(number, original: [5, 22].contains(number), missingThumbnail: [9, 17, 22].contains(number))
      })
    XCTAssertEqual(quick.summary, "40 photos checked quickly (headers only): 5 problems")
  }

  func testQuickAndRepairTogetherAreAUsageErrorAndChangeNothing() throws {
    try addPhotos(2)
    try FileManager.default.removeItem(atPath: try thumbnailPath(1))
    let before = try snapshot(vault.vault)
    let run = try vault.run(["verify", "--quick", "--repair"])
    XCTAssertEqual(run.status, 64, run.stderr)
    XCTAssertTrue(run.stderr.contains("--quick cannot be used with --repair"), run.stderr)
    XCTAssertEqual(run.stdout, "")
    XCTAssertEqual(try snapshot(vault.vault), before)
  }

  /// A missing thumbnail or damaged original: the hints name a backup's way to bring them
  /// back beside --repair.
  func testTheHintsNameRestoreMissing() throws {
    try addPhotos(2)
    try FileManager.default.removeItem(atPath: try thumbnailPath(1))
    let run = try vault.run(["verify"])
    XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
    XCTAssertTrue(run.stderr.contains("'vault verify --repair'"), run.stderr)
    XCTAssertTrue(run.stderr.contains("'vault restore REMOTE --missing'"), run.stderr)
  }
}
