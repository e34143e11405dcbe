import Foundation
import XCTest

@testable import VaultCore

/// A reader that stays open (`vault view`) holds no lock while it waits, sees other
/// writers' changes when it reloads, and makes its own changes through a short-lived writer.
final class LongRunningReaderTests: XCTestCase {
  var folder = ""
  var vault: Vault!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    let writer = try vault.unlock(password: password("first"), access: .write)
    try PhotoImporter().importFiles(["photo.jpg", "gray.png"].map { fixturesPath + "/" + $0 }, into: writer) {
      _, _ in
    }
  }

  /// Whether another open of the folder could take the exclusive lock now.
  func exclusiveLockIsFree(_ directory: String) -> Bool {
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    defer { close(descriptor) }
    return flock(descriptor, LOCK_EX | LOCK_NB) == 0
  }

  func testAReaderThatReleasesItsLockLetsWritersIn() throws {
    let reader = try vault.unlock(password: password("first"), access: .read)
    XCTAssertFalse(exclusiveLockIsFree(reader.directory), "a reader holds a shared lock while it reads")
    reader.releaseLock()
    XCTAssertTrue(exclusiveLockIsFree(reader.directory))
    // Another command deletes a photo; the reader sees it only once it reloads.
    do {
      let writer = try vault.unlock(password: password("first"), access: .write)
      try writer.deletePhotos(ids: [writer.entries[0].record.id])
    }
    XCTAssertEqual(reader.entries.count, 2)
    try reader.reload()
    XCTAssertEqual(reader.entries.map(\.record.name), ["gray.png"])
    XCTAssertTrue(exclusiveLockIsFree(reader.directory), "reload holds the lock only while it reads")
  }

  /// The viewer and the mount read the space again through their browser: it shows the
  /// catalog it holds until then, and what it had when the space no longer reads whole.
  func testAReadersBrowserReadsTheSpaceAgainThroughItsDataSource() throws {
    let reader = try vault.unlock(password: password("first"), access: .read)
    reader.releaseLock()
    let browser = reader.makeBrowser()
    try browser.addToAlbum("Trip", [browser.photo(at: 0)!])
    XCTAssertEqual(browser.album(named: "trip")?.count, 1, "the album as an addition finds it")
    do {
      let writer = try vault.unlock(password: password("first"), access: .write)
      try writer.deletePhotos(ids: [writer.entries[1].record.id])
    }
    XCTAssertEqual(browser.count, 2)
    XCTAssertNil(try browser.readAgain(waitingAtMost: 0))
    XCTAssertEqual(browser.count, 1)
    XCTAssertTrue(exclusiveLockIsFree(reader.directory), "read under a lock held only while reading")

    for segment in try FileManager.default.contentsOfDirectory(atPath: reader.journalDirectory) {
      try Data("damaged".utf8).write(to: URL(fileURLWithPath: reader.journalDirectory + "/" + segment))
    }
    let damage = try browser.readAgain(waitingAtMost: 0)
    XCTAssertNotNil(damage)
    XCTAssertEqual(browser.count, 1, "the browser keeps what it had")
    browser.reloadData()
    XCTAssertEqual(browser.count, 0, "the space now lists nothing")
  }

  func testAReaderChangesThroughAWriterAndSeesTheChange() throws {
    let reader = try vault.unlock(password: password("first"), access: .read)
    try reader.change { writer in try writer.setSelection([1], to: true) }
    XCTAssertEqual(reader.entries.map(\.selected), [false, true])
    XCTAssertTrue(exclusiveLockIsFree(reader.directory))
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: reader.directory).filter {
        $0.hasPrefix(Space.writerMarkPrefix)
      }, [], "the writer's mark goes with the writer")
    let fresh = try vault.unlock(password: password("first"), access: .read)
    XCTAssertEqual(fresh.entries.map(\.selected), [false, true])
  }

  /// After `vault passwd` renamed the folder, and a new space was made at the old path with
  /// the old password, a reader still open on the first space neither changes, reads nor
  /// takes blobs from the new one: each says the space moved.
  func testAReaderWhoseSpaceMovedSaysSoEvenWhenAnotherSpaceTookItsPath() throws {
    let reader = try vault.unlock(password: password("first"), access: .read)
    reader.releaseLock()
    let record = reader.entries[0].record
    try vault.changePassword(from: password("first")) { try password("second") }
    func assertMoved(_ what: String, _ body: () throws -> Void) {
      XCTAssertThrowsError(try body(), what) { error in
        guard case VaultError.spaceMoved = error else { return XCTFail("\(what): \(error)") }
      }
    }
    assertMoved("thumbnail") { _ = try reader.thumbnail(of: record) }
    assertMoved("original") { _ = try reader.original(of: record) }
    try vault.createSpace(password: password("first"))
    XCTAssertTrue(FileManager.default.fileExists(atPath: reader.directory))
    assertMoved("change") { try reader.change { writer in try writer.setSelection([0], to: true) } }
    assertMoved("reload") { try reader.reload() }
    assertMoved("thumbnail, another space at its path") { _ = try reader.thumbnail(of: record) }
    let moved = try vault.unlock(password: password("second"), access: .read)
    XCTAssertEqual(moved.entries.map(\.selected), [false, false])
    XCTAssertEqual(try vault.unlock(password: password("first"), access: .read).entries.count, 0)
  }

  func testAFailedChangeStillReloadsWhatWasWritten() throws {
    let reader = try vault.unlock(password: password("first"), access: .read)
    struct Stop: Error {}
    XCTAssertThrowsError(
      try reader.change { writer in
        try writer.setSelection([0], to: true)
        throw Stop()
      }
    ) { XCTAssertTrue($0 is Stop) }
    XCTAssertEqual(reader.entries.map(\.selected), [true, false])
  }
}
