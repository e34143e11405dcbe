import Foundation
import XCTest

@testable import VaultCore

/// Recently Deleted from the command line (issue 33, items 1 and 2): `delete` moves photos
/// there and names each one, `vault trash` lists, restores and empties it, `delete --now`
/// and expiry delete for good, and no output ever suggests running a deletion again.
final class TrashTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  @discardableResult
  func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> VaultRun {
    let result = try vault.run(arguments)
    XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
    return result
  }

  func names(_ arguments: [String] = []) throws -> [String] {
    try vault.listJSON(arguments).compactMap { $0["name"] as? String }
  }

  func id(of name: String) throws -> String {
    try XCTUnwrap(try vault.listJSON().first { $0["name"] as? String == name }?["id"] as? String, name)
  }

  /// Adds gray.png, photo.jpg and palette.png, numbered in that order.
  func addThree() throws {
    for name in ["gray.png", "photo.jpg", "palette.png"] {
      try run(["add", "--quiet", fixturesPath + "/" + name])
    }
    XCTAssertEqual(try names(), ["gray.png", "photo.jpg", "palette.png"])
  }

  /// What `vault trash` lists, without the dates: number and name of each line.
  func trashed() throws -> [String] {
    let output = try run(["trash"]).stdout
    if output == "Recently Deleted is empty\n" { return [] }
    return output.split(separator: "\n").map { line in
      let parts = line.split(separator: " ", omittingEmptySubsequences: true)
      return parts[0] + " " + parts[1]
    }
  }

  func testDeleteMovesToRecentlyDeletedAndRestoreBringsItBackToItsAlbum() throws {
    try addThree()
    try run(["album", "new", "Trip"])
    try run(["album", "add", "Trip", "2"])
    try run(["select", "2"])
    let photoID = try id(of: "photo.jpg")
    let deleted = try run(["delete", "2", "--yes"])
    XCTAssertEqual(
      deleted.stdout, "deleted 'photo.jpg'\nmoved 1 photo to Recently Deleted (kept 30 days); 2 left\n")
    XCTAssertEqual(try names(), ["gray.png", "palette.png"])
    XCTAssertEqual(try names(["--album", "Trip"]), [])
    XCTAssertEqual(try run(["album", "list"]).stdout.contains("Trip"), true)
    let info = try run(["info"]).stdout
    XCTAssertTrue(info.contains("photos:          2 (0 selected)\n"), info)
    XCTAssertTrue(info.contains("recently deleted: 1 photo, kept 30 days ('vault trash' lists them)\n"), info)
    let listing = try run(["trash"]).stdout
    XCTAssertTrue(
      listing.range(
        of: #"^1  photo\.jpg  deleted \d{4}-\d\d-\d\d \d\d:\d\d, 30 days left\n$"#,
        options: .regularExpression)
        != nil, listing)
    // export --all and select --all pass over it.
    let exported = folder + "/all"
    try run(["export", "--all", "--quiet", "--to", exported])
    XCTAssertEqual(
      Set(try FileManager.default.contentsOfDirectory(atPath: exported)), ["gray.png", "palette.png"])
    XCTAssertEqual(try run(["select", "--all"]).stdout, "2 of 2 photos selected\n")
    try run(["select", "--none"])

    // By number, as `vault trash` shows it: back in its album, with its selection.
    XCTAssertEqual(
      try run(["trash", "restore", "1"]).stdout,
      "restored 'photo.jpg'\nrestored 1 photo; 3 in the space, 0 in Recently Deleted\n")
    XCTAssertEqual(try names(), ["gray.png", "photo.jpg", "palette.png"])
    XCTAssertEqual(try names(["--album", "Trip"]), ["photo.jpg"])
    XCTAssertEqual(try trashed(), [])

    // By id; then exported bit for bit.
    try run(["delete", "2", "--yes"])
    try run(["trash", "restore", String(photoID.prefix(8))])
    XCTAssertEqual(try names(["--album", "Trip"]), ["photo.jpg"])
    let back = folder + "/back"
    try run(["export", "2", "--quiet", "--to", back])
    XCTAssertEqual(try fileBytes(back + "/photo.jpg"), try fileBytes(fixturesPath + "/photo.jpg"))
    XCTAssertEqual(try run(["verify", "--quiet"]).status, 0)
  }

  func testTrashListsMostRecentlyDeletedFirstAndRestoresRanges() throws {
    try addThree()
    try run(["delete", "1", "--yes"])
    try run(["delete", "2", "--yes"])
    XCTAssertEqual(try trashed(), ["1 palette.png", "2 gray.png"])
    XCTAssertEqual(
      try run(["trash", "restore", "1-2"]).stdout.split(separator: "\n").last,
      "restored 2 photos; 3 in the space, 0 in Recently Deleted")
    XCTAssertEqual(try names(), ["gray.png", "photo.jpg", "palette.png"])
    let refused = try vault.run(["trash", "restore", "1"])
    XCTAssertEqual(refused.status, 1)
    XCTAssertEqual(refused.stderr, "error: there is no item 1 in Recently Deleted: it is empty\n")
  }

  func testEmptyingTheTrashAndDeleteNowRemoveTheFiles() throws {
    try addThree()
    let space = try vault.spaceFolder()
    let (gray, photo) = (try id(of: "gray.png"), try id(of: "photo.jpg"))
    try run(["delete", "1", "--yes"])
    XCTAssertTrue(FileManager.default.fileExists(atPath: space + "/Photo/" + gray))
    XCTAssertTrue(FileManager.default.fileExists(atPath: space + "/Thumb/" + gray))
    let refused = try vault.run(["trash", "empty"])
    XCTAssertEqual(refused.status, 1, "asked nobody")
    XCTAssertTrue(FileManager.default.fileExists(atPath: space + "/Photo/" + gray))
    XCTAssertEqual(
      try run(["trash", "empty", "--yes"]).stdout, "deleted 'gray.png'\ndeleted 1 photo for good\n")
    XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/Photo/" + gray))
    XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/Thumb/" + gray))
    XCTAssertEqual(try trashed(), [])

    XCTAssertEqual(
      try run(["delete", "--now", "1", "--yes"]).stdout,
      "deleted 'photo.jpg'\ndeleted 1 photo for good; 1 left\n")
    XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/Photo/" + photo))
    XCTAssertEqual(try trashed(), [])
    XCTAssertEqual(try names(), ["palette.png"])
    XCTAssertEqual(try run(["verify", "--quiet"]).status, 0)
  }

  /// verify checks what is in Recently Deleted, under its number there.
  func testVerifyChecksTheTrashNamingItsItems() throws {
    try addThree()
    let space = try vault.spaceFolder()
    let photo = try id(of: "photo.jpg")
    try run(["delete", "2", "--yes"])
    let intact = try run(["verify"])
    XCTAssertTrue(intact.stdout.contains("ok: 1 photo.jpg (in Recently Deleted)\n"), intact.stdout)
    XCTAssertTrue(
      intact.stdout.hasSuffix("2 photos and 1 in Recently Deleted checked: all intact\n"), intact.stdout)
    var bytes = try fileBytes(space + "/Photo/" + photo)
    bytes[bytes.count - 20] ^= 1
    try writeBytes(bytes, to: space + "/Photo/" + photo)
    let damaged = try vault.run(["verify"])
    XCTAssertEqual(damaged.status, 1)
    XCTAssertTrue(
      damaged.stdout.contains("damaged original: 1 photo.jpg (in Recently Deleted) (Photo/\(photo))"),
      damaged.stdout)
    XCTAssertTrue(damaged.stderr.contains("(item 1 of 'vault trash', id \(photo))"), damaged.stderr)
    XCTAssertFalse(damaged.stderr.contains("vault delete"), damaged.stderr)
  }

  /// A mark older than the retention and its grace (written with a stamp in the past, not
  /// waited for) is deleted for good by the next command that writes, whatever it is, and
  /// that command names it on stderr (issue 33's review, F1: it went silently). One past
  /// its retention but in the grace shows as due, and stays.
  func testExpiredPhotosGoAtTheNextWriteWhichNamesThem() throws {
    try addThree()
    let space = try vault.spaceFolder()
    let (gray, photo) = (try id(of: "gray.png"), try id(of: "photo.jpg"))
    try run(["trash", "retention", "7"])
    let day = TrashRetention.dayNanoseconds
    let now = Timestamp.now().nanosecondsSince1970
    try forge([
      .trashed(try XCTUnwrap(BlobID(hex: gray)), trashed: true, stamp: now - (15 + 7) * day),
      .trashed(try XCTUnwrap(BlobID(hex: photo)), trashed: true, stamp: now - 8 * day),
    ])
    // A reader changes nothing.
    XCTAssertEqual(try trashed(), ["1 photo.jpg", "2 gray.png"])
    XCTAssertTrue(FileManager.default.fileExists(atPath: space + "/Photo/" + gray))
    let listing = try run(["trash"]).stdout
    XCTAssertTrue(listing.contains("photo.jpg  deleted "), listing)
    XCTAssertTrue(listing.contains(", due: deleted for good at a change from "), listing)
    XCTAssertFalse(listing.contains("0 days left"), listing)
    let select = try run(["select", "1"])
    XCTAssertEqual(
      select.stderr,
      "warning: 'gray.png' was in Recently Deleted longer than 7 days (and 7 days' grace): deleted for good\n"
    )
    XCTAssertEqual(try trashed(), ["1 photo.jpg"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/Photo/" + gray))
    XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/Thumb/" + gray))
    XCTAssertEqual(try names(), ["palette.png"])
    XCTAssertEqual(try run(["verify", "--quiet"]).status, 0)
    XCTAssertEqual(try run(["select", "1"]).stderr, "", "named once")
  }

  /// Issue 33's review, F4: `trash restore` expired first, so the item `vault trash` showed
  /// as due was gone before its restore and the numbers moved. Now restore, retention and
  /// empty expire nothing: the numbers are what `vault trash` showed.
  func testRestoreRetentionAndEmptyExpireNothingFirst() throws {
    try addThree()
    let (gray, photo) = (try id(of: "gray.png"), try id(of: "photo.jpg"))
    let day = TrashRetention.dayNanoseconds
    let now = Timestamp.now().nanosecondsSince1970
    try forge([
      .trashed(try XCTUnwrap(BlobID(hex: gray)), trashed: true, stamp: now - 60 * day),
      .trashed(try XCTUnwrap(BlobID(hex: photo)), trashed: true, stamp: now - 59 * day),
    ])
    XCTAssertEqual(try trashed(), ["1 photo.jpg", "2 gray.png"])
    let retention = try run(["trash", "retention", "40"])
    XCTAssertEqual(retention.stderr, "")
    XCTAssertEqual(try trashed(), ["1 photo.jpg", "2 gray.png"])
    let restore = try run(["trash", "restore", "2"])
    XCTAssertEqual(restore.stderr, "")
    XCTAssertTrue(restore.stdout.hasPrefix("restored 'gray.png'\n"), restore.stdout)
    XCTAssertEqual(try names(), ["gray.png", "palette.png"])
    let empty = try run(["trash", "empty", "--yes"])
    XCTAssertEqual(empty.stderr, "")
    XCTAssertEqual(empty.stdout, "deleted 'photo.jpg'\ndeleted 1 photo for good\n")
  }

  /// Issue 33's review, F5, end to end: while `trash empty`'s question waits on a terminal,
  /// another command restores one of the items it named. Answering yes deletes the other,
  /// and names the restored one as kept (it deleted both).
  func testEmptyingKeepsAnItemRestoredWhileItsQuestionWaited() throws {
    try addThree()
    try run(["delete", "1-2", "--yes"])
    XCTAssertEqual(try trashed(), ["1 gray.png", "2 photo.jpg"])
    let session = try TmuxSession(
      "\(VaultRunner.binary) trash empty; echo \"exit status $?\"", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"], width: 100, height: 20)
    _ = try session.wait(for: "for good? This cannot be undone.")
    try run(["trash", "restore", "2"])
    try session.send("y", "Enter")
    let screen = try session.wait(for: "exit status 0")
    XCTAssertTrue(screen.contains("'photo.jpg' was restored meanwhile: kept"), screen)
    XCTAssertTrue(screen.contains("deleted 'gray.png'\ndeleted 1 photo for good"), screen)
    XCTAssertEqual(try names(), ["photo.jpg", "palette.png"])
    XCTAssertEqual(try trashed(), [])
  }

  /// Issue 33's review, F6: a copy whose clock is behind a stamp the space holds (written
  /// by a copy whose clock ran days ahead) cannot tell how long an item has been in
  /// Recently Deleted: it deletes nothing for good, and says so once.
  func testExpiryWaitsWhileTheClockIsBehindTheSpacesLatestStamp() throws {
    try addThree()
    let (gray, palette) = (try id(of: "gray.png"), try id(of: "palette.png"))
    let day = TrashRetention.dayNanoseconds
    let now = Timestamp.now().nanosecondsSince1970
    try forge([
      .trashed(try XCTUnwrap(BlobID(hex: gray)), trashed: true, stamp: now - 60 * day),
      .selection(try XCTUnwrap(BlobID(hex: palette)), selected: true, stamp: now + 3 * day),
    ])
    let select = try run(["select", "1"])
    XCTAssertTrue(select.stderr.hasPrefix("warning: kept what is due in Recently Deleted: "), select.stderr)
    XCTAssertEqual(select.stderr.split(separator: "\n").count, 1, select.stderr)
    XCTAssertEqual(try trashed(), ["1 gray.png"])
  }

  /// `vault view` changes the space through short-lived writers, which expire too: what
  /// they deleted for good is named once the viewer's screen is gone.
  func testTheViewerNamesWhatItsChangesExpired() throws {
    try addThree()
    try forgeTrashed("gray.png", daysAgo: 60)
    let session = try TmuxSession(
      "\(VaultRunner.binary) view --mode symbols 2> view-stderr.txt; echo \"exit status $?\"", in: folder,
      environment: [
        "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color", "TMUX": "",
      ], width: 100, height: 30)
    _ = try session.wait(for: "Enter: open")
    try session.type(" ")
    _ = try session.wait(for: "1 selected")
    try session.type("q")
    _ = try session.wait(for: "exit status 0")
    XCTAssertEqual(
      try String(contentsOfFile: folder + "/view-stderr.txt", encoding: .utf8),
      "warning: 'gray.png' was in Recently Deleted longer than 30 days (and 7 days' grace): deleted for good\n"
    )
    XCTAssertEqual(try trashed(), [])
  }

  /// `vault passwd` writes through a space it does not hand back, so nothing would name
  /// what expiry deleted: it expires nothing, and the next command names the item.
  func testAPasswordChangeDeletesNothingUnnamed() throws {
    try addThree()
    try forgeTrashed("gray.png", daysAgo: 60)
    let newPassword = folder + "/new-password"
    try writeBytes(Array("battery staple\n".utf8), to: newPassword)
    try run(["passwd", "--new-password-file", newPassword])
    let listing = try vault.run(["trash"], password: "battery staple").stdout
    XCTAssertTrue(listing.contains("gray.png  deleted "), listing)
    let select = try vault.run(["select", "1"], password: "battery staple")
    XCTAssertTrue(
      select.stderr.contains("'gray.png' was in Recently Deleted longer than 30 days"), select.stderr)
  }

  /// Puts `name` in Recently Deleted as if `days` days ago.
  /// An expired file is named as `vault trash` showed it: the second of two files imported
  /// as 'photo.jpg' shows as 'photo (1).jpg'; named by its own name, it was announced as
  /// the other file, still in the space (the review of issue 35's third pass).
  func testAnExpiredFileIsNamedAsItShowed() throws {
    try run(["add", "--quiet", fixturesPath + "/photo.jpg"])
    let other = folder + "/other/photo.jpg"
    try FileManager.default.createDirectory(
      atPath: folder + "/other", withIntermediateDirectories: true)
    try writeBytes(try fileBytes(fixturesPath + "/photo.jpg") + [0], to: other)
    try run(["add", "--quiet", other])
    XCTAssertEqual(try names(["--sort", "imported"]), ["photo.jpg", "photo (1).jpg"])
    let id = try self.id(of: "photo (1).jpg")
    try forgeTrashed(id: id, daysAgo: 60)
    let select = try run(["select", "1"])
    XCTAssertEqual(
      select.stderr,
      "warning: 'photo (1).jpg' was in Recently Deleted longer than 30 days (and 7 days' grace): deleted for good\n"
    )
    XCTAssertEqual(try names(), ["photo.jpg"])
  }

  func forgeTrashed(id: String, daysAgo days: Int64) throws {
    let stamp = Timestamp.now().nanosecondsSince1970 - days * TrashRetention.dayNanoseconds
    try forge([.trashed(try XCTUnwrap(BlobID(hex: id)), trashed: true, stamp: stamp)])
  }

  func forgeTrashed(_ name: String, daysAgo days: Int64) throws {
    let stamp = Timestamp.now().nanosecondsSince1970 - days * TrashRetention.dayNanoseconds
    try forge([.trashed(try XCTUnwrap(BlobID(hex: try id(of: name))), trashed: true, stamp: stamp)])
  }

  func forge(_ entries: [JournalEntry]) throws {
    let space = try Vault.open(at: vault.vault).unlock(
      password: try Password(utf8: Array("correct horse".utf8)), access: .write)
    try JournalSegmentWriter(directory: space.journalDirectory, key: space.master.journalKey()).append(
      entries)
  }

  /// Issue 33, item 1: `delete 1-12 --yes` printed `deleted 12 photos; 2 left (--verbose
  /// names them)`, and running it again with --verbose deleted 12 other photos. Now every
  /// photo is named (not on a terminal), and no line names a command to run again.
  func testADeletionNamesEveryPhotoAndSuggestsNoCommand() throws {
    let photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    let base = try fileBytes(fixturesPath + "/photo.jpg")
    for number in 1...14 {
      try writeBytes(base + [UInt8(number)], to: photos + String(format: "/p%02d.jpg", number))
    }
    try run(["add", "--quiet", photos])
    let deleted = try run(["delete", "1-12", "--yes"])
    XCTAssertEqual(
      deleted.stdout,
      (1...12).map { String(format: "deleted 'p%02d.jpg'\n", $0) }.joined()
        + "moved 12 photos to Recently Deleted (kept 30 days); 2 left\n")
    XCTAssertFalse((deleted.stdout + deleted.stderr).contains("--verbose"))
    XCTAssertFalse((deleted.stdout + deleted.stderr).contains("vault delete"))
    XCTAssertEqual(try trashed().count, 12)
  }

  /// On a terminal, a screenful, then where the rest are.
  func testOnATerminalADeletionNamesAScreenfulAndSaysWhereTheRestAre() throws {
    let photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    let base = try fileBytes(fixturesPath + "/photo.jpg")
    for number in 1...30 {
      try writeBytes(base + [UInt8(number)], to: photos + String(format: "/p%02d.jpg", number))
    }
    try run(["add", "--quiet", photos])
    let session = try TmuxSession(
      "\(VaultRunner.binary) delete --all --yes; echo \"exit status $?\"", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"], width: 100, height: 20)
    let screen = try session.wait(for: "exit status 0")
    XCTAssertTrue(screen.contains("deleted 'p01.jpg'"), screen)
    XCTAssertTrue(screen.contains("… and 15 more (vault trash lists them)"), screen)
    XCTAssertFalse(screen.contains("deleted 'p30.jpg'"), screen)
    XCTAssertTrue(screen.contains("moved 30 photos to Recently Deleted (kept 30 days); 0 left"), screen)
  }

  func testRetentionIsShownSetAndChecked() throws {
    XCTAssertEqual(
      try run(["trash", "retention"]).stdout, "Recently Deleted keeps photos 30 days after their deletion\n")
    XCTAssertEqual(
      try run(["trash", "retention", "never"]).stdout,
      "Recently Deleted keeps photos until 'vault trash empty' from now on\n")
    let refused = try vault.run(["trash", "retention", "0"])
    XCTAssertEqual(refused.status, 64)
    XCTAssertTrue(refused.stderr.contains("'0' is not a number of days from 1 to 3650"), refused.stderr)
    try addThree()
    XCTAssertEqual(
      try run(["delete", "1", "--yes"]).stdout,
      "deleted 'gray.png'\nmoved 1 photo to Recently Deleted (kept until emptied); 2 left\n")
    XCTAssertTrue(try run(["trash"]).stdout.hasSuffix(", kept until emptied\n"))
  }

  /// Two copies of one vault, merged as a file union (what a sync engine that never removes
  /// does): a deletion on one copy and a restore on the other end where the later one put
  /// the photo, on both.
  func testADeletionOnOneCopyAndARestoreOnTheOtherMergeToTheLaterOne() throws {
    try addThree()
    let other = VaultRunner(vault: folder + "/other", workingDirectory: folder)
    try copyUnion(from: vault.vault, to: other.vault)
    try run(["delete", "2", "--yes"])
    try copyUnion(from: vault.vault, to: other.vault)
    XCTAssertEqual(try other.run(["trash", "restore", "1"]).status, 0)
    try copyUnion(from: other.vault, to: vault.vault)
    for copy in [vault!, other] {
      XCTAssertEqual(
        try copy.listJSON().compactMap { $0["name"] as? String }, ["gray.png", "photo.jpg", "palette.png"])
      XCTAssertEqual(try copy.run(["trash"]).stdout, "Recently Deleted is empty\n")
    }
    // In both trashes, restored on one copy while the other empties its trash: a deletion
    // for good wins over any mark, on both.
    try run(["delete", "1", "--yes"])
    try copyUnion(from: vault.vault, to: other.vault)
    XCTAssertEqual(try other.run(["trash", "restore", "1"]).status, 0)
    try run(["trash", "empty", "--yes"])
    try copyUnion(from: other.vault, to: vault.vault)
    try copyUnion(from: vault.vault, to: other.vault)
    for copy in [vault!, other] {
      XCTAssertEqual(try copy.run(["select", "--none"]).status, 0)
      XCTAssertEqual(try copy.listJSON().compactMap { $0["name"] as? String }, ["photo.jpg", "palette.png"])
      XCTAssertEqual(try copy.run(["trash"]).stdout, "Recently Deleted is empty\n")
      XCTAssertEqual(try copy.run(["verify", "--quiet"]).status, 0)
    }
  }
}
