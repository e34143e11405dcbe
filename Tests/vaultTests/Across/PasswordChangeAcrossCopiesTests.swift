import Foundation
import XCTest

/// A password changed on one copy of a vault while another copy writes under the old one,
/// as sync engines then leave the old folder (what `SyncthingTests` sees with the real
/// engine, made here by hand so that it runs in a second): Syncthing leaves the old folder
/// with only the other copy's new files and no key; Unison reports a conflict, and keeping
/// the other copy's side brings the whole old folder back, key included. The space's next
/// writer moves those files in and removes the old folder; another space of the vault (a
/// decoy's) never touches it.
final class PasswordChangeAcrossCopiesTests: XCTestCase {
  var folder = ""
  let newPassword = "new battery staple"
  let decoy = "decoy password"

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  func testFilesLeftInAKeylessOldFolderAreMovedIn() throws {
    let (a, oldFolder) = try changedOnAWhileBAdds { b, old in
      // Syncthing's outcome: the files B made there, nothing else.
      try self.copyFiles(
        of: b + "/" + old, into: self.folder + "/A/" + old, onlyNewSince: self.folder + "/base/" + old)
    }
    let old = try a.run(["list"])
    XCTAssertEqual(old.status, 3, old.stdout)
    XCTAssertEqual(
      old.stderr, "error: no space opens with this password\n" + SyncthingTests.changedElsewhereHint)
    // A reader with the new password: the files are moved in first.
    try assertWhole(a, without: oldFolder)
  }

  func testAnOldFolderKeptWholeIsMovedInByTheNextWrite() throws {
    let (a, oldFolder) = try changedOnAWhileBAdds { b, old in
      // Unison's outcome once the conflict is resolved for B: the whole folder.
      try FileManager.default.copyItem(atPath: b + "/" + old, toPath: self.folder + "/A/" + old)
    }
    // The old password opens the old folder as B left it until a writer of the space runs.
    XCTAssertEqual(try a.listJSON(password: "correct horse").count, 3)
    let write = try a.run(["add", fixturesPath + "/gray.png"], password: newPassword)
    XCTAssertTrue(write.stdout.contains("added 0, skipped 1 duplicate"), write.stdout + write.stderr)
    XCTAssertEqual(try a.run(["list"]).status, 3)
    try assertWhole(a, without: oldFolder)
  }

  // MARK: - Helpers

  /// A vault of two photos (and a decoy space of one) copied to A and B; `passwd` on A, an
  /// import of palette.png on B with the old password; then `bringBack(B's vault, the
  /// space's old folder name)` puts into A what the engine would. A write of the decoy
  /// space leaves the old folder alone. Returns A and the old folder's name.
  func changedOnAWhileBAdds(bringBack: (String, String) throws -> Void) throws -> (VaultRunner, String) {
    let base = try VaultRunner.initialized(in: folder)
    try FileManager.default.moveItem(atPath: base.vault, toPath: folder + "/base")
    let original = VaultRunner(vault: folder + "/base", workingDirectory: folder)
    XCTAssertEqual(
      try original.run(["add", fixturesPath + "/gray.png", fixturesPath + "/photo.jpg"]).status, 0)
    let oldFolder = URL(fileURLWithPath: try original.spaceFolder()).lastPathComponent
    XCTAssertEqual(try original.run(["init"], password: decoy).status, 0)
    XCTAssertEqual(try original.run(["add", fixturesPath + "/rgba.png"], password: decoy).status, 0)
    for name in ["A", "B"] {
      try FileManager.default.copyItem(atPath: folder + "/base", toPath: folder + "/" + name)
    }
    let a = VaultRunner(vault: folder + "/A", workingDirectory: folder)
    let b = VaultRunner(vault: folder + "/B", workingDirectory: folder)
    let passwordFile = folder + "/new-password"
    try (newPassword + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
    XCTAssertEqual(try a.run(["passwd", "--new-password-file", passwordFile]).status, 0)
    XCTAssertEqual(try b.run(["add", fixturesPath + "/palette.png"]).status, 0)
    try bringBack(b.vault, oldFolder)
    let decoyWrite = try a.run(["add", fixturesPath + "/rgba.png"], password: decoy)
    XCTAssertTrue(decoyWrite.stdout.contains("skipped 1 duplicate"), decoyWrite.stdout + decoyWrite.stderr)
    XCTAssertTrue(FileManager.default.fileExists(atPath: a.vault + "/" + oldFolder))
    return (a, oldFolder)
  }

  /// The space opens with the new password with all three photos, intact, and its old
  /// folder is gone; the decoy space is as it was.
  func assertWhole(
    _ a: VaultRunner, without oldFolder: String, file: StaticString = #filePath, line: UInt = #line
  )
    throws
  {
    let names = try a.listJSON(password: newPassword).map { $0["name"] as? String ?? "" }
    XCTAssertEqual(names.sorted(), ["gray.png", "palette.png", "photo.jpg"], file: file, line: line)
    XCTAssertFalse(FileManager.default.fileExists(atPath: a.vault + "/" + oldFolder), file: file, line: line)
    let verify = try a.run(["verify", "--quiet"], password: newPassword)
    XCTAssertEqual(verify.status, 0, verify.stdout, file: file, line: line)
    XCTAssertEqual(try a.listJSON(password: decoy).count, 1, file: file, line: line)
    XCTAssertEqual(try a.spaceFolders().count, 2, file: file, line: line)
  }

  /// Copies every file below `source` that `base` does not have into `target`, under the
  /// same relative path.
  func copyFiles(of source: String, into target: String, onlyNewSince base: String) throws {
    let known = try snapshot(base)
    for (relative, _) in try snapshot(source) where !relative.hasSuffix("/") && known[relative] == nil {
      let destination = target + "/" + relative
      try FileManager.default.createDirectory(
        atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: source + "/" + relative, toPath: destination)
    }
  }
}
