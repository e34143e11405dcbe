import Foundation
import XCTest

/// `vault add --move`: a source goes only once the space holds it, read back intact; every
/// other file stays.
final class MoveTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var source = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    source = folder + "/card"
    try FileManager.default.createDirectory(atPath: source + "/DCIM", withIntermediateDirectories: true)
  }

  /// Copies fixtures into the card folder; returns their paths.
  @discardableResult
  private func onCard(_ names: [String]) throws -> [String] {
    try names.map {
      let path = source + "/DCIM/" + ($0 as NSString).lastPathComponent
      try FileManager.default.copyItem(atPath: fixturesPath + "/" + $0, toPath: path)
      return path
    }
  }

  private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

  /// The SHA-256 of every original in the space, exported.
  private func storedHashes() throws -> Set<String> {
    let out = folder + "/export-\(UUID().uuidString)"
    let run = try vault.run(["export", "--all", "--to", out])
    XCTAssertEqual(run.status, 0, run.stderr)
    return Set(
      try FileManager.default.contentsOfDirectory(atPath: out).map { sha256(try fileBytes(out + "/" + $0)) })
  }

  func testSourcesGoOnlyWhenTheSpaceHoldsThem() throws {
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png"]).status, 0)
    let photos = try onCard(["photo.jpg", "rgba.png", "gray.png", "corrupt-data.jpg"])
    let failing = try onCard(["bad/corrupt.jpg", "bad/notes.txt"])
    let hashes = Set(
      try ["photo.jpg", "rgba.png", "gray.png", "corrupt-data.jpg"].map {
        sha256(try fileBytes(fixturesPath + "/" + $0))
      })
    let run = try vault.run(["add", "--move", source])
    XCTAssertEqual(run.status, 1, "a file failed: \(run.stderr)")
    for path in photos { XCTAssertFalse(exists(path), path) }
    for path in failing { XCTAssertTrue(exists(path), "a file that was not imported stays: \(path)") }
    XCTAssertTrue(run.stdout.contains("removed \(photos[0])\n"), run.stdout)
    XCTAssertTrue(
      run.stdout.contains("skipped '\(photos[2])': already in the space as 1 'gray.png' (id ")
        && run.stdout.contains(")\nremoved \(photos[2])\n"), run.stdout)
    XCTAssertTrue(
      run.stdout.contains(
        "added 3 photos, skipped 1 duplicate, failed 1, 1 with warnings; removed 4 source files\n"),
      run.stdout)
    XCTAssertEqual(try storedHashes(), hashes)
    let verify = try vault.run(["verify"])
    XCTAssertEqual(verify.status, 0, verify.stdout)

    // Without --move, nothing is removed.
    let kept = try onCard(["palette.png"])
    XCTAssertEqual(try vault.run(["add", source]).status, 1)
    XCTAssertTrue(exists(kept[0]))
  }

  /// A file named twice (the card, and its folder by another spelling) is imported and
  /// removed once; it was once reported kept, because the second time it was gone.
  func testAFileReachedTwiceIsMovedOnce() throws {
    let photos = try onCard(["photo.jpg"])
    let run = try vault.run(["add", "--move", source, source + "/./DCIM"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertFalse(exists(photos[0]))
    XCTAssertTrue(
      run.stdout.hasSuffix("added 1 photo, skipped 0 duplicates, failed 0; removed 1 source file\n"),
      run.stdout)
  }

  /// Every file of a read-only card stays: the first few say why, and the summary counts
  /// them all (a line per photo on a card of hundreds buried the summary). Files that are
  /// not photos stay too, and the summary says so.
  func testAReadOnlyCardIsImportedAndSaysItKeptTheFiles() throws {
    let names = [
      "photo.jpg", "gray.png", "rgba.png", "palette.png", "flat-teal.png", "gray.jpg", "progressive.jpg",
    ]
    let photos = try onCard(names)
    try "notes".write(toFile: source + "/DCIM/notes.txt", atomically: true, encoding: .utf8)
    let card = try ResilienceTests.ReadOnlyFolder(path: source + "/DCIM")
    defer { card.restore() }
    let run = try vault.run(["add", "--move", source])
    XCTAssertEqual(run.status, 1, run.stderr)
    for path in photos { XCTAssertTrue(exists(path), path) }
    XCTAssertTrue(exists(source + "/DCIM/notes.txt"))
    let named = run.stderr.split(separator: "\n").filter { $0.contains("but the file was not removed") }
    XCTAssertEqual(named.count, 5, run.stderr)
    XCTAssertTrue(
      run.stdout.contains("added 7 photos, skipped 0 duplicates, failed 0; removed 0 source files\n"),
      run.stdout)
    XCTAssertTrue(
      run.stdout.contains(
        "skipped 1 file that is not JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV; it stays where it is (--verbose names it)"
      ),
      run.stdout)
    XCTAssertTrue(
      run.stderr.contains(
        "error: 7 source files were kept (in the space, but not removed; the first 5 are named above, --verbose names all)"
      ),
      run.stderr)
    XCTAssertEqual(try storedHashes().count, 7)

    // --verbose names every one.
    let again = try vault.run(["add", "--move", "--verbose", source])
    XCTAssertEqual(
      again.stderr.split(separator: "\n").filter { $0.contains("but the file was not removed") }.count, 7,
      again.stderr)
  }

  func testADuplicateStaysWhenTheStoredCopyDoesNotReadBack() throws {
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/photo.jpg"]).status, 0)
    let space = try vault.spaceFolders()[0]
    let blob = try FileManager.default.contentsOfDirectory(atPath: space + "/Photo")[0]
    var bytes = try fileBytes(space + "/Photo/" + blob)
    bytes[bytes.count - 20] ^= 1
    try writeBytes(bytes, to: space + "/Photo/" + blob)
    let photos = try onCard(["photo.jpg"])
    let run = try vault.run(["add", "--move", source])
    XCTAssertEqual(run.status, 1, run.stderr)
    XCTAssertTrue(exists(photos[0]))
    XCTAssertTrue(run.stderr.contains("its copy in the space does not read back"), run.stderr)
    XCTAssertTrue(run.stdout.contains("removed 0 source files"), run.stdout)
  }

  func testALinkIsNotRemovedInPlaceOfItsPhoto() throws {
    let photos = try onCard(["photo.jpg"])
    let link = folder + "/link.jpg"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: photos[0])
    let run = try vault.run(["add", "--move", link])
    XCTAssertEqual(run.status, 1, run.stderr)
    XCTAssertTrue(exists(link))
    XCTAssertTrue(exists(photos[0]))
    XCTAssertTrue(run.stderr.contains("not a regular file"), run.stderr)
    // The file itself is moved; it is a duplicate by then.
    let moved = try vault.run(["add", "--move", "--quiet", photos[0]])
    XCTAssertEqual(moved.status, 0, moved.stderr)
    XCTAssertEqual(moved.stdout, "added 0 items, skipped 1 duplicate, failed 0; removed 1 source file\n")
    XCTAssertFalse(exists(photos[0]))
  }
}
