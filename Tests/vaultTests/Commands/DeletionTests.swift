import Foundation
import XCTest

/// Deletions that name what they delete (issue 19, item 2): `select` says when it adds to
/// an earlier selection, the question names the photos and the albums they leave,
/// `delete` names what it deleted, and `--dry-run` changes nothing.
final class DeletionTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  /// Adds `count` distinct photos, p01.jpg… (photo.jpg and its number after the end
  /// marker), numbered in that order.
  func addPhotos(_ count: Int, batch: UInt8 = 0) throws {
    let photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    let base = try fileBytes(fixturesPath + "/photo.jpg")
    for number in 1...count {
      try writeBytes(base + [batch, UInt8(number)], to: photos + "/" + name(number))
    }
    XCTAssertEqual(try run(["add", "--quiet", photos]).status, 0)
    XCTAssertEqual(try importedNames(), (1...count).map(name))
  }

  func name(_ number: Int) -> String { String(format: "p%02d.jpg", number) }

  /// How the question and `--dry-run` list photo `number` when numbers take two digits.
  func listed(_ number: Int) -> String { "  " + (number < 10 ? " " : "") + "\(number) " + name(number) }

  @discardableResult
  func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> VaultRun {
    let result = try vault.run(arguments)
    XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
    return result
  }

  func names() throws -> [String] {
    try vault.listJSON().compactMap { $0["name"] as? String }
  }

  /// The names the photos were imported under (`list` shows another when it was taken).
  func importedNames() throws -> [String] {
    try vault.listJSON().compactMap { ($0["importedName"] ?? $0["name"]) as? String }
  }

  func testSelectSaysWhenItAddsToAnEarlierSelection() throws {
    try addPhotos(12)
    XCTAssertEqual(try run(["select", "1-4"]).stdout, "4 of 12 photos selected\n")
    XCTAssertEqual(
      try run(["select", "6-9"]).stdout,
      "8 of 12 photos selected (4 of them from before; 'vault select --none' clears)\n")
    // A photo named again is not one "from before".
    XCTAssertEqual(
      try run(["select", "1", "10"]).stdout,
      "9 of 12 photos selected (7 of them from before; 'vault select --none' clears)\n")
    XCTAssertEqual(try run(["select", "--none"]).stdout, "0 of 12 photos selected\n")
    XCTAssertEqual(try run(["select", "--all"]).stdout, "12 of 12 photos selected\n")
    // Within an album, the photos selected outside it are said too.
    try run(["select", "--none"])
    try run(["album", "new", "Trip"])
    try run(["album", "add", "Trip", "2-3"])
    try run(["select", "7"])
    XCTAssertEqual(
      try run(["select", "--album", "Trip", "1"]).stdout,
      "1 of 2 photos in album 'Trip' selected; 2 in the space (1 of them from before; 'vault select --none' clears)\n"
    )
  }

  func testTheQuestionNamesTheFirstTenPhotosAndTheAlbumsTheyLeave() throws {
    try addPhotos(12)
    try run(["album", "new", "Trip"])
    try run(["album", "add", "Trip", "2-3", "12"])
    try run(["select", "--all"])
    try run(["unselect", "12"])
    let session = try TmuxSession(
      "\(VaultRunner.binary) delete --selected; echo \"exit status $?\"", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"], width: 120, height: 30)
    let screen = try session.wait(for: "[y/N]")
    // capture-pane keeps the space after [y/N]; only trailing spaces are dropped.
    let lines = screen.split(separator: "\n").map { String($0.reversed().drop { $0 == " " }.reversed()) }
    let question = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("Move 11 photos") })
    guard question >= 12 else { return XCTFail("the question names no photos:\n\(screen)") }
    XCTAssertEqual(
      Array(lines[(question - 12)..<question]),
      (1...10).map(listed) + [
        "  … and 1 more", "albums they leave: 'Trip' (2 of its 3 photos)",
      ])
    XCTAssertEqual(lines[question], "Move 11 photos to Recently Deleted (kept 30 days)? [y/N]")
    try session.send("n", "Enter")
    try session.wait(for: "exit status 0")
    XCTAssertEqual(try names().count, 12)
  }

  /// A question left on screen holds up no other command (a new user's `list` waited ten
  /// minutes behind one), and what is deleted after it is what it named, by id, even when
  /// another command moved the numbers meanwhile.
  func testAQuestionOnScreenHoldsUpNoOtherCommandAndDeletesWhatItNamed() throws {
    try addPhotos(3)
    let session = try TmuxSession(
      "\(VaultRunner.binary) delete 1; echo \"exit status $?\"", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"], width: 120, height: 30)
    try session.wait(for: "Move 'p01.jpg' to Recently Deleted (kept 30 days)? [y/N]")
    // Other commands write and read while the question waits.
    XCTAssertEqual(try run(["select", "2"]).stdout, "1 of 3 photos selected\n")
    XCTAssertEqual(try run(["list", "--count", "1"]).status, 0)
    try session.send("y", "Enter")
    try session.wait(for: "exit status 0")
    XCTAssertEqual(try names(), [name(2), name(3)])
  }

  func testDeleteNamesWhatItDeleted() throws {
    try addPhotos(12)
    XCTAssertEqual(
      try run(["delete", "2", "5", "--yes"]).stdout,
      "deleted 'p02.jpg'\ndeleted 'p05.jpg'\nmoved 2 photos to Recently Deleted (kept 30 days); 10 left\n")
    // Not on a terminal, every one however many (issue 33: past ten it was a count, with a
    // hint to delete again with --verbose).
    XCTAssertEqual(try run(["delete", "--all", "--yes"]).stdout.split(separator: "\n").count, 11)
    // Their names are held by the first twelve in Recently Deleted: each is named as list
    // and export name it.
    try addPhotos(12, batch: 1)
    XCTAssertEqual(
      try run(["delete", "--all", "--yes"]).stdout,
      (1...12).map { "deleted '\(String(format: "p%02d (1).jpg", $0))'\n" }.joined()
        + "moved 12 photos to Recently Deleted (kept 30 days); 0 left\n")
  }

  func testDryRunListsWhatWouldBeDeletedAndChangesNothing() throws {
    try addPhotos(12)
    try run(["album", "new", "Trip"])
    try run(["album", "add", "Trip", "12"])
    let before = try snapshot(vault.vault)
    let dryRun = try run(["delete", "--all", "--dry-run"])
    XCTAssertEqual(
      dryRun.stdout,
      "would delete:\n" + (1...12).map { listed($0) + "\n" }.joined()
        + "albums they leave: 'Trip' (its only photo)\n"
        + "would move 12 photos to Recently Deleted; nothing deleted (--dry-run)\n")
    XCTAssertEqual(try snapshot(vault.vault), before, "a dry run changed the vault")
    // No question is asked, and no terminal is needed.
    let album = try run(["delete", "--album", "Trip", "--all", "--dry-run"])
    XCTAssertTrue(
      album.stdout.hasSuffix(
        "would move 1 photo to Recently Deleted from the space and every album "
          + "(to take it out of 'Trip' only: vault album remove); nothing deleted (--dry-run)\n"),
      album.stdout)
    XCTAssertEqual(try names().count, 12)
  }
}
