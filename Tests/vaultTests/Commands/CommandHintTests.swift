import Foundation
import XCTest

/// The hints that name vault's commands and flags are the CLI's (VaultCore words its
/// errors without them), and `vault` prints them as before.
final class CommandHintTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  func testNoVaultHintNamesInit() throws {
    let missing = VaultRunner(vault: folder + "/nowhere", workingDirectory: folder)
    let list = try missing.run(["list"])
    XCTAssertEqual(list.status, 1)
    XCTAssertTrue(
      list.stderr.contains("error: no vault at '\(folder)/nowhere' (create one with 'vault init')\n"),
      list.stderr)
  }

  func testNothingSelectedHintNamesSelect() throws {
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/photo.jpg"]).status, 0)
    let delete = try vault.run(["delete", "--selected", "--yes"])
    XCTAssertEqual(delete.status, 1)
    XCTAssertTrue(
      delete.stderr.contains(
        "error: no photos selected: select photos before deleting (e.g. vault select 2 5-7)\n"),
      delete.stderr)
  }

  func testDamagedIndexHintNamesVerifyRepair() throws {
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/photo.jpg"]).status, 0)
    let space = try XCTUnwrap(
      vault.spaceFolders().first { FileManager.default.fileExists(atPath: $0 + "/Journal") })
    let journal = space + "/Journal"
    try FileManager.default.removeItem(atPath: journal)
    let list = try vault.run(["list"])
    XCTAssertEqual(list.status, 1)
    XCTAssertTrue(
      list.stderr.contains(
        "error: the index '\(journal)' is damaged: the folder is missing (it held the space's photos, albums and "
          + "selection) (run 'vault verify --repair' to rebuild it)\n"),
      list.stderr)
  }

  /// `view --help` offers only the modes `view` draws with; `text`, which it refuses, is
  /// not among them, and is still refused with what to use instead.
  func testViewHelpListsOnlyTheModesViewAccepts() throws {
    let help = try vault.run(["view", "--help"])
    XCTAssertEqual(help.status, 0, help.stderr)
    // The help is wrapped to the terminal's width: compared with its words on one line.
    let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    XCTAssertTrue(words.contains("(values: auto, kitty, iterm2, sixel, symbols; default: auto)"), help.stdout)
    XCTAssertFalse(words.contains("symbols, text"), help.stdout)
    let text = try vault.run(["view", "--mode", "text"])
    XCTAssertEqual(text.status, 64, text.stderr)
    XCTAssertTrue(text.stderr.contains("view draws pictures; for text use 'vault list'"), text.stderr)
  }

  /// The hint that a password changed on another copy opens this one once the sync brings
  /// the change follows a password that opens nothing only where the vault is kept in sync
  /// (a sync engine's mark in its folder or above it); on main it followed every one.
  func testTheSyncHintFollowsAWrongPasswordOnlyInAVaultKeptInSync() throws {
    let alone = try vault.run(["list"], password: "wrong horse")
    XCTAssertEqual(alone.status, 3)
    XCTAssertEqual(alone.stderr, "error: no space opens with this password\n")
    for mark in [".stfolder", ".sync_4a5b.db"] {
      let synced = folder + "/synced-\(mark)"
      try FileManager.default.createDirectory(atPath: synced + "/" + mark, withIntermediateDirectories: true)
      let copy = VaultRunner(vault: synced + "/photos/vault", workingDirectory: folder)
      try FileManager.default.createDirectory(atPath: synced + "/photos", withIntermediateDirectories: true)
      XCTAssertEqual(try copy.run(["init", "--kdf", "interactive"]).status, 0)
      let wrong = try copy.run(["list"], password: "wrong horse")
      XCTAssertEqual(wrong.status, 3)
      XCTAssertEqual(
        wrong.stderr, "error: no space opens with this password\n" + SyncthingTests.changedElsewhereHint, mark
      )
    }
  }
}
