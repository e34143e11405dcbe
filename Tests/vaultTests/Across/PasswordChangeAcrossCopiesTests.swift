import Foundation
import XCTest

/// A password changed on one copy of a vault while another copy writes under the old one,
/// as sync engines then leave the old folder (what `SyncthingTests` sees with the real
/// engine, made here by hand so that it runs in a second): Syncthing leaves the old folder
/// with only the other copy's new files and no key; Unison reports a conflict, and keeping
/// the other copy's side brings the whole old folder back, key included. The space's next
/// command moves the files of a keyless old folder in and removes it; an old folder with
/// its key stays a space of its own (nothing moves either way, so what the new password
/// adds never reaches the old one); another space of the vault (a decoy's) never touches
/// either. A sync peer's forged folders (links, copies of the journal beside files named
/// like the space's) change nothing of the space.
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
    XCTAssertEqual(old.stderr, Self.keyMissing(a.vault + "/" + oldFolder))
    // A reader with the new password: the files are moved in first.
    try assertWhole(a, without: oldFolder)
  }

  func testAnOldFolderKeptWholeStaysASpaceOfItsOwn() throws {
    let (a, oldFolder) = try changedOnAWhileBAdds { b, old in
      // Unison's outcome once the conflict is resolved for B: the whole folder.
      try FileManager.default.copyItem(atPath: b + "/" + old, toPath: self.folder + "/A/" + old)
    }
    // Writes with either password fold neither folder into the other: a copy cannot tell
    // which is newer, and folding the new into the old would hand the old password what
    // was added under the new one.
    for password in [newPassword, "correct horse"] {
      let write = try a.run(["add", fixturesPath + "/gray.png"], password: password)
      XCTAssertTrue(write.stdout.contains("added 0 items, skipped 1 duplicate"), write.stdout + write.stderr)
    }
    let names = { (password: String) in
      try a.listJSON(password: password).map { $0["name"] as? String ?? "" }.sorted()
    }
    XCTAssertEqual(try names("correct horse"), ["gray.png", "palette.png", "photo.jpg"])
    XCTAssertEqual(try names(newPassword), ["gray.png", "photo.jpg"])
    XCTAssertTrue(FileManager.default.fileExists(atPath: a.vault + "/" + oldFolder))
    XCTAssertEqual(try a.spaceFolders().count, 3)
  }

  /// What a peer without keys can put in the vault folder: a keyless folder holding a copy
  /// of the space's journal beside longer files named like the space's blobs and journal
  /// segments, and a link named like a space to a copy of the space outside the vault. A
  /// reader and a writer leave every file of the space and of the copy as it was.
  func testForgedFoldersChangeNothingOfTheSpace() throws {
    let vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png", fixturesPath + "/photo.jpg"]).status, 0)
    let space = try vault.spaceFolder()
    try FileManager.default.copyItem(atPath: vault.vault, toPath: folder + "/backup")
    let forged = vault.vault + "/0123456789abcdef0123456789abcdef"
    for name in ["Journal", "Photo"] {
      try FileManager.default.createDirectory(atPath: forged + "/" + name, withIntermediateDirectories: true)
      for file in try FileManager.default.contentsOfDirectory(atPath: space + "/" + name) {
        var bytes = try fileBytes(space + "/" + name + "/" + file)
        if name == "Photo" { bytes = [UInt8](repeating: 7, count: bytes.count + 100) }
        try Data(bytes).write(to: URL(fileURLWithPath: forged + "/" + name + "/" + file))
      }
    }
    let backupSpace = folder + "/backup/" + URL(fileURLWithPath: space).lastPathComponent
    try FileManager.default.createSymbolicLink(
      atPath: vault.vault + "/00000000000000000000000000000001", withDestinationPath: backupSpace)
    let photosBefore = try snapshot(space + "/Photo")
    let backupBefore = try snapshot(folder + "/backup")
    XCTAssertEqual(try vault.listJSON().count, 2)
    XCTAssertEqual(try vault.run(["select", "1"]).status, 0)
    XCTAssertEqual(try snapshot(space + "/Photo"), photosBefore, "the space's photos were replaced")
    XCTAssertEqual(
      try snapshot(folder + "/backup"), backupBefore, "files moved out of a copy outside the vault")
    let verify = try vault.run(["verify", "--quiet"])
    XCTAssertEqual(verify.status, 0, verify.stdout)
  }

  /// An empty folder named like a space (anyone with the vault folder can make one) leaves
  /// a reader a reader: it neither waits for the space's readers (here a shared lock this
  /// test holds, as `vault view` does) to take the space to write, nor writes.
  func testAnEmptyKeylessFolderLeavesReadersReaders() throws {
    let vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png"]).status, 0)
    let space = try vault.spaceFolder()
    try FileManager.default.createDirectory(
      atPath: vault.vault + "/0123456789abcdef0123456789abcdef", withIntermediateDirectories: false)
    // Another process holds a shared lock, as the space's readers do.
    let holding = try FolderLockHolder(space, exclusive: false)
    defer { holding.end() }
    let journalBefore = try snapshot(space + "/Journal")
    let listed = try vault.run(["list"])
    XCTAssertEqual(listed.status, 0, listed.stderr)
    XCTAssertFalse(listed.stderr.contains("waiting for"), listed.stderr)
    XCTAssertEqual(try snapshot(space + "/Journal"), journalBefore)
  }

  /// Plants, beside `vault`'s space, a keyless folder with a copy of its journal and a
  /// `Photo/` holding one file that nobody can write in; returns the folder and what makes
  /// its `Photo/` writable again.
  private func plantKeylessFolderThatCannotBeEmptied(beside vault: VaultRunner) throws
    -> (String, ResilienceTests.ReadOnlyFolder)
  {
    let space = try vault.spaceFolder()
    let planted = vault.vault + "/0123456789abcdef0123456789abcdef"
    try FileManager.default.createDirectory(atPath: planted + "/Photo", withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: space + "/Journal", toPath: planted + "/Journal")
    try Data([1, 2, 3]).write(
      to: URL(fileURLWithPath: planted + "/Photo/" + String(repeating: "ab", count: 16)))
    return (planted, try ResilienceTests.ReadOnlyFolder(path: planted + "/Photo"))
  }

  /// A keyless folder a sync brought, with a copy of the space's journal and a `Photo/`
  /// nobody can write in (security review: as a user, every write then failed with an error
  /// naming the space's own folder): the space's writes and reads go on, each with one
  /// warning naming that folder.
  func testAKeylessFolderThatCannotBeEmptiedNeverStopsTheSpace() throws {
    let vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png"]).status, 0)
    let (planted, readOnly) = try plantKeylessFolderThatCannotBeEmptied(beside: vault)
    defer { readOnly.restore() }
    for arguments in [["add", fixturesPath + "/photo.jpg"], ["select", "1"], ["list"]] {
      let run = try vault.run(arguments)
      XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
      let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
      XCTAssertEqual(warnings.count, 1, run.stderr)
      XCTAssertTrue(warnings.first?.hasPrefix("warning: '\(planted)': ") == true, run.stderr)
      XCTAssertFalse(run.stderr.contains("error:"), run.stderr)
    }
    let listed = try vault.listJSON(["--selected"]).map { $0["name"] as? String ?? "" }
    XCTAssertEqual(listed, ["gray.png"])
    XCTAssertEqual(try vault.listJSON().count, 2)
  }

  /// The same folder, its `Photo/` still read-only, while another reader holds the space
  /// (`vault view`, here a shared lock this test holds): a reader that no writer could take
  /// the folder's files in for stays a reader (security review: each `list` let go of its
  /// lock to become the writer, and waited 10 s for the other reader), and names the folder.
  func testAReaderNeverWaitsToTakeInFilesNoWriterCanMove() throws {
    let vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png"]).status, 0)
    let (planted, readOnly) = try plantKeylessFolderThatCannotBeEmptied(beside: vault)
    defer { readOnly.restore() }
    let holding = try FolderLockHolder(try vault.spaceFolder(), exclusive: false)
    defer { holding.end() }
    for time in ["first", "second"] {
      let listed = try vault.run(["list"])
      XCTAssertEqual(listed.status, 0, "\(time): \(listed.stderr)")
      XCTAssertFalse(listed.stderr.contains("waiting for"), "\(time): \(listed.stderr)")
      let warnings = listed.stderr.split(separator: "\n")
      XCTAssertEqual(warnings.count, 1, "\(time): \(listed.stderr)")
      XCTAssertTrue(
        warnings.first?.hasPrefix("warning: '\(planted)': the files a password change") == true,
        "\(time): \(listed.stderr)")
    }
  }

  /// A keyless folder with a copy of the space's journal in which one segment was grown,
  /// sparse, to a gibibyte (security review: both copies were read whole, 1.1 GB, the grown
  /// one replaced the space's, and every later command warned of its incomplete record):
  /// the copies are compared a piece at a time, the space keeps its own, and one warning
  /// names the file.
  func testASegmentGrownSparseInAKeylessFolderIsNotTakenIn() throws {
    try requireTool("/usr/bin/time")
    let vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png"]).status, 0)
    let space = try vault.spaceFolder()
    let planted = vault.vault + "/0123456789abcdef0123456789abcdef"
    try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: false)
    try FileManager.default.copyItem(atPath: space + "/Journal", toPath: planted + "/Journal")
    let segment = try XCTUnwrap(
      try FileManager.default.contentsOfDirectory(atPath: space + "/Journal").first { $0.hasPrefix("j-") })
    XCTAssertEqual(truncate(planted + "/Journal/" + segment, 1 << 30), 0)
    let journalBefore = try snapshot(space + "/Journal")
    let (listed, peakBytes) = try vault.runMeasured(["list"])
    XCTAssertEqual(listed.status, 0, listed.stderr)
    // A command takes some 50 MB; reading the gibibyte took 1.1 GB.
    XCTAssertLessThan(peakBytes, 200 << 20, listed.stderr)
    XCTAssertEqual(
      listed.stderr,
      "warning: '\(planted)/Journal/\(segment)': not taken into the space: "
        + "what it adds to the space's copy is no whole record\n")
    XCTAssertEqual(try snapshot(space + "/Journal"), journalBefore)
    XCTAssertFalse(FileManager.default.fileExists(atPath: planted))
    let again = try vault.run(["list"])
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertEqual(again.stderr, "")
  }

  /// A keyless folder with a copy of the space's journal and a segment of its own whose
  /// record claims 256 MiB, sparse to a gibibyte with one byte at its end (security
  /// review: the folder is never taken in, so every command read that record again, 580 MB
  /// and over a second each): the record is never read, by the first command or the next.
  func testASparseRecordInAKeylessFolderIsReadByNoCommand() throws {
    try requireTool("/usr/bin/time")
    let vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png"]).status, 0)
    let space = try vault.spaceFolder()
    let planted = vault.vault + "/0123456789abcdef0123456789abcdef"
    try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: false)
    try FileManager.default.copyItem(atPath: space + "/Journal", toPath: planted + "/Journal")
    let id = String(repeating: "ab", count: 16)
    let segment = planted + "/Journal/j-" + id
    let header = Array("VLTJ".utf8) + [2] + (0..<16).map { _ in UInt8(0xAB) }
    try Data(header + [0x10, 0, 0, 0]).write(to: URL(fileURLWithPath: segment))
    XCTAssertEqual(truncate(segment, 1 << 30), 0)
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: segment))
    try handle.seek(toOffset: (1 << 30) - 1)
    try handle.write(contentsOf: Data([1]))
    try handle.close()
    let journalBefore = try snapshot(space + "/Journal")
    for (time, arguments) in [("first", ["list"]), ("second", ["list"]), ("a writer", ["select", "1"])] {
      let (run, peakBytes) = try vault.runMeasured(arguments)
      XCTAssertEqual(run.status, 0, "\(time): \(run.stderr)")
      // A command takes some 120 MB in a debug build; reading the record took 580 MB.
      XCTAssertLessThan(peakBytes, 250 << 20, time)
    }
    XCTAssertEqual(try vault.listJSON(["--selected"]).count, 1)
    XCTAssertTrue(FileManager.default.fileExists(atPath: segment))
    XCTAssertEqual(try snapshot(space + "/Journal").count, journalBefore.count + 1, "one selection segment")
  }

  /// A folder of the password's space without its key file: one line naming the folder,
  /// and a hint for both ways it comes about.
  static func keyMissing(_ folder: String) -> String {
    "error: '\(folder)': the space's key file is missing, so this password opens nothing\n"
      + "hint: if the password was changed on another copy, the new one opens the space (its next command takes this folder's files in); else restore the key file from a backup, or use 'vault recover'\n"
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
