import Foundation
import XCTest

@testable import VaultCore

/// What a hostile vault folder or journal could do to every command (issue 19, section 5:
/// items 3 to 8), each through the built binary. Every run goes through `timeout`, so that
/// a command that would hang fails the test instead of holding it up.
final class HostileFolderTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  /// A run that `timeout` had to kill exits with 137: far longer than any command here takes.
  let deadline = ["/usr/bin/timeout", "-s", "KILL", "60"]

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  @discardableResult
  func run(_ arguments: [String], password: String? = "correct horse") throws -> VaultRun {
    try vault.run(arguments, password: password, through: deadline)
  }

  func add(_ names: [String], album: String? = nil) throws {
    let albumArguments = album.map { ["--album", $0] } ?? []
    let added = try run(["add", "-q"] + albumArguments + names.map { fixturesPath + "/" + $0 })
    XCTAssertEqual(added.status, 0, added.stderr)
  }

  func space() throws -> String { try XCTUnwrap(vault.spaceFolders().first) }

  func photoIDs() throws -> [String] {
    try vault.listJSON().compactMap { $0["id"] as? String }
  }

  /// Appends `entries` to a new segment of the space's journal, as a writer with the key
  /// would (a synced copy's, say).
  func forge(_ entries: [JournalEntry]) throws {
    let space = try Vault.open(at: vault.vault).unlock(
      password: try Password(utf8: Array("correct horse".utf8)), access: .write)
    try JournalSegmentWriter(directory: space.journalDirectory, key: space.master.journalKey()).append(
      entries)
  }

  /// The run failed cleanly (not killed, not crashed) with one error line saying `words`.
  func assertRefused(
    _ run: VaultRun, saying words: [String], status: Int32 = 1, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertEqual(run.status, status, "stdout: \(run.stdout) stderr: \(run.stderr)", file: file, line: line)
    for word in words {
      XCTAssertTrue(run.stderr.contains(word), "'\(word)' not in: \(run.stderr)", file: file, line: line)
    }
  }

  // MARK: 3. FIFOs

  /// Puts a FIFO at `path` for the length of `body`, then puts the file back.
  func withFIFO(at path: String, _ body: () throws -> Void) throws {
    try FileManager.default.moveItem(atPath: path, toPath: path + ".saved")
    XCTAssertEqual(mkfifo(path, 0o600), 0)
    defer {
      unlink(path)
      try? FileManager.default.moveItem(atPath: path + ".saved", toPath: path)
    }
    try body()
  }

  func testAFIFOInPlaceOfAnyVaultFileFailsNamingItAndNeverHangs() throws {
    try add(["photo.jpg"])
    let space = try space()
    let id = try XCTUnwrap(photoIDs().first)
    try withFIFO(at: vault.vault + "/vault.json") {
      assertRefused(
        try run(["info", "--no-password"], password: nil), saying: ["vault.json", "not a regular file"])
    }
    try withFIFO(at: space + "/key") {
      assertRefused(try run(["info"]), saying: [space + "/key", "not a regular file"])
    }
    try withFIFO(at: space + "/Photo/" + id) {
      assertRefused(
        try run(["export", "1", "--to", folder + "/out"]), saying: ["Photo/\(id)", "not a regular file"])
      assertRefused(try run(["verify"]), saying: ["the space is not intact"])
    }
    try withFIFO(at: space + "/Thumb/" + id) {
      let listed = try run(["list", "--per-row", "2", "--mode", "symbols"])
      XCTAssertNotEqual(listed.status, 137, "list hung on a FIFO thumbnail")
      XCTAssertTrue(listed.stderr.contains("not a regular file"), listed.stderr)
    }
  }

  // MARK: 4. A deleted Journal/

  func testASpaceWithoutItsJournalIsNeverTakenForFormat1() throws {
    try add(["photo.jpg", "gray.jpg"], album: "trip")
    try add(["gray.png"])
    XCTAssertEqual(try run(["delete", "--now", "3", "--yes"]).status, 0)
    XCTAssertEqual(try run(["select", "1"]).status, 0)
    let space = try space()
    try FileManager.default.removeItem(atPath: space + "/Journal")

    let listed = try run(["list"])
    assertRefused(listed, saying: [space + "/Journal", "missing"])
    XCTAssertFalse(listed.stderr.contains("/index"), listed.stderr)

    let repaired = try run(["verify", "--repair"])
    assertRefused(repaired, saying: ["albums", "selection", "deletions", "not as it was"])
    XCTAssertFalse(repaired.stdout.contains("all intact"), repaired.stdout)
    XCTAssertTrue(repaired.stdout.contains("new journal listing the 2 intact originals"), repaired.stdout)
    // Format 2, with a journal again, and no format-1 index.
    XCTAssertTrue(try run(["info"]).stdout.contains("space format:    2"))
    XCTAssertTrue(FileManager.default.fileExists(atPath: space + "/Journal"))
    XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/index"))
    XCTAssertEqual(try photoIDs().count, 2)
  }

  // MARK: 5. Sparse segments

  func testASparseSegmentOfAGibibyteCostsNoMemory() throws {
    try add(["photo.jpg"])
    let gid = BlobID.random()
    let path = try space() + "/Journal/" + JournalSegment.namePrefix + gid.hex
    XCTAssertTrue(
      FileManager.default.createFile(atPath: path, contents: Data(JournalSegment.header(id: gid))))
    XCTAssertEqual(truncate(path, 1 << 30), 0)
    let measured = try vault.run(["list"], through: deadline + ["/usr/bin/time", "-f", "peak-kb %M"])
    XCTAssertEqual(measured.status, 0, measured.stderr)
    let peak = try XCTUnwrap(
      measured.stderr.split(separator: "\n").last { $0.hasPrefix("peak-kb ") }.flatMap {
        Int($0.dropFirst(8))
      })
    // The segment's gibibyte is never read into memory (a command takes some 50 MB).
    XCTAssertLessThan(peak, 400_000, measured.stderr)
  }

  // MARK: 6. Overflows

  func testSizesAtTheEndOf64BitsAreDamageNotACrash() throws {
    try add(["photo.jpg"])
    var record = PhotoRecord(
      id: .random(), name: "huge.jpg", bytes: .max, format: .jpeg, width: 1, height: 1, orientation: 1,
      modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0),
      contentHash: String(repeating: "0", count: 64))
    try forge([.added(record, order: Timestamp.now().nanosecondsSince1970)])
    for arguments in [["info"], ["show", "2"], ["list"]] {
      assertRefused(try run(arguments), saying: ["Journal/j-", "malformed photo record"])
    }
    XCTAssertEqual(try run(["verify", "--repair"]).status, 0)
    record.bytes = 1
    record.width = 1 << 31
    record.height = 1 << 31
    try forge([.added(record, order: Timestamp.now().nanosecondsSince1970)])
    assertRefused(try run(["info"]), saying: ["malformed photo record"])
  }

  func testAnyNumberOfPhotosARowIsRefusedWithoutACrash() throws {
    try add(["photo.jpg"])
    for perRow in ["9223372036854775807", "4611686018427387904", "1000"] {
      assertRefused(try run(["list", "--per-row", perRow]), saying: ["do not fit"], status: 64)
    }
  }

  // MARK: 7. Stamps that pin the clock

  func testAStampAtTheEndOfTimeIsRefused() throws {
    try add(["photo.jpg"])
    let id = try XCTUnwrap(BlobID(hex: XCTUnwrap(photoIDs().first)))
    try forge([.selection(id, selected: true, stamp: .max)])
    assertRefused(try run(["select", "--none"]), saying: ["Journal/j-", "stamped more than ten years"])
    assertRefused(try run(["delete", "--selected", "--yes"]), saying: ["stamped more than ten years"])
    XCTAssertEqual(try run(["verify", "--repair"]).status, 0)
    XCTAssertEqual(try run(["delete", "--selected", "--yes"]).status, 1, "a photo was still selected")
    XCTAssertEqual(try photoIDs().count, 1)
    // A day past the bound as the test reckons it: the command that reads it starts later, and
    // on a loaded machine more than a second later (a margin of one second let it through).
    let aDay: Int64 = 86_400 * 1_000_000_000
    try forge([.albumNamed(.random(), name: "pinned", stamp: JournalEntry.latestStamp() + aDay)])
    assertRefused(try run(["album", "list"]), saying: ["stamped more than ten years"])
  }

  // MARK: 8. Symlinked folders

  func testASpaceWhosePhotoFolderIsALinkIsRefusedAndNothingOutsideIsTouched() throws {
    try add(["photo.jpg"])
    let space = try space()
    let elsewhere = folder + "/elsewhere"
    try FileManager.default.moveItem(atPath: space + "/Photo", toPath: elsewhere)
    try FileManager.default.createSymbolicLink(atPath: space + "/Photo", withDestinationPath: elsewhere)
    XCTAssertTrue(
      FileManager.default.createFile(atPath: elsewhere + "/.tmp-precious", contents: Data("x".utf8)))
    XCTAssertTrue(
      FileManager.default.createFile(atPath: space + "/.tmp-writer-0011223344556677", contents: nil))
    let before = try FileManager.default.contentsOfDirectory(atPath: elsewhere).sorted()

    assertRefused(try run(["add", fixturesPath + "/gray.png"]), saying: [space + "/Photo", "not a folder"])
    assertRefused(try run(["list"]), saying: [space + "/Photo", "not a folder"])
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere).sorted(), before)
  }

  /// The space's own folder as a link (security review, low): refused like its Photo
  /// folder, for every command; nothing is written through it.
  func testASpaceFolderThatIsALinkIsRefused() throws {
    try add(["photo.jpg"])
    let space = try space()
    let elsewhere = folder + "/space-elsewhere"
    try FileManager.default.moveItem(atPath: space, toPath: elsewhere)
    try FileManager.default.createSymbolicLink(atPath: space, withDestinationPath: elsewhere)
    let before = try FileManager.default.subpathsOfDirectory(atPath: elsewhere).sorted()
    assertRefused(try run(["add", fixturesPath + "/gray.png"]), saying: [space, "not a folder"])
    assertRefused(try run(["list"]), saying: [space, "not a folder"])
    assertRefused(try run(["verify"]), saying: [space, "not a folder"])
    XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: elsewhere).sorted(), before)
  }
}
