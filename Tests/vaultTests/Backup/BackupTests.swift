import Foundation
import XCTest

@testable import VaultCore

/// `vault backup`, `backup --check` and `restore` end to end, over rclone's local backend (a
/// folder is a remote).
final class BackupTests: XCTestCase {
  private var folder = ""
  private var vault: VaultRunner!
  private var remote = ""
  private var environment: [String: String] = [:]
  private var random = SeededGenerator(seed: 34)

  override func setUpWithError() throws {
    try requireRclone()
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    remote = folder + "/remote"
    environment = backupEnvironment(folder)
  }

  @discardableResult
  private func vaultRun(
    _ arguments: [String], password: String? = nil, expecting status: Int32 = 0,
    file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> VaultRun {
    let run = try vault.run(arguments, password: password, environment: environment)
    XCTAssertEqual(run.status, status, run.stdout + run.stderr, file: file, line: line)
    return run
  }

  /// Two photos added and backed up: the space's folder, its tag, and the first photo's id.
  private func backedUpPhoto(named prefix: String) throws -> (space: String, tag: String, id: String) {
    _ = try addPhotos(2, named: prefix)
    try vaultRun(["backup", remote])
    let space = try vault.spaceFolder()
    let id = try XCTUnwrap(vault.listJSON().first?["id"] as? String)
    return (space, (space as NSString).lastPathComponent, id)
  }

  /// Leaves the original `id` of `space` as `vault offload` does once the remote holds it:
  /// its stub written (size and MD5), its Photo/ file gone.
  private func offloadByHand(_ id: String, in space: String) throws {
    let original = try fileBytes(space + "/Photo/" + id)
    try FileManager.default.createDirectory(atPath: space + "/Offloaded", withIntermediateDirectories: true)
    let md5 = try XCTUnwrap(FileMD5.of(space + "/Photo/" + id)).md5
    try writeBytes(Array("\(original.count) \(md5)\n".utf8), to: space + "/Offloaded/" + id)
    try FileManager.default.removeItem(atPath: space + "/Photo/" + id)
  }

  private func addPhotos(_ count: Int, named prefix: String) throws -> [String] {
    let photos = try writeNoisePhotos(count, into: folder + "/in", named: prefix, random: &random)
    try vaultRun(["add"] + photos, password: "correct horse")
    return photos
  }

  func testABackupOfEverySpaceRestoresBitForBit() throws {
    _ = try addPhotos(4, named: "a")
    XCTAssertEqual(try vault.run(["init"], password: "decoy").status, 0)
    try vaultRun(["add", fixturesPath + "/photo.jpg"], password: "decoy")
    let backup = try vaultRun(["backup", remote])
    XCTAssertTrue(backup.stdout.hasPrefix("backed up 19 files ("), backup.stdout)
    let restored = folder + "/restored"
    let restore = try vaultRun(["restore", remote, "--to", restored])
    XCTAssertTrue(restore.stdout.hasPrefix("restored 19 files ("), restore.stdout)
    XCTAssertEqual(try snapshot(restored), try snapshot(vault.vault))
    // The remote's current/ alone is a vault, and so is what rclone copies back.
    XCTAssertEqual(try snapshot(remote + "/current"), try snapshot(vault.vault))
    for password in ["correct horse", "decoy"] {
      let verify = try vault.run(["verify", "--vault", restored], password: password)
      XCTAssertEqual(verify.status, 0, verify.stdout)
    }
    // Again: an earlier restore's folder is taken, and nothing is fetched again.
    let again = try vaultRun(["restore", remote, "--to", restored])
    XCTAssertTrue(again.stdout.hasPrefix("restored 0 files (0 B)"), again.stdout)
  }

  func testAnIncrementalBackupSendsTheNewPhotoAndTheJournalChangeOnly() throws {
    _ = try addPhotos(6, named: "first")
    try vaultRun(["backup", remote])
    let before = fileStates(remote + "/current")
    _ = try addPhotos(1, named: "second")
    let run = try vaultRun(["backup", remote])
    let after = fileStates(remote + "/current")
    let written = Set(after.keys.filter { after[$0] != before[$0] })
    let space = (try vault.spaceFolder() as NSString).lastPathComponent
    let new = try XCTUnwrap(
      vault.listJSON().compactMap { $0["id"] as? String }.first { before[space + "/Photo/" + $0] == nil })
    let journal = written.filter { $0.hasPrefix(space + "/Journal/") }
    XCTAssertEqual(written.subtracting(journal), [space + "/Photo/" + new, space + "/Thumb/" + new])
    XCTAssertEqual(journal.count, 1, "\(written)")
    XCTAssertTrue(run.stdout.hasPrefix("backed up 3 files ("), run.stdout)
  }

  func testCheckNamesAFlippedByteATruncatedAndAMissingFile() throws {
    _ = try addPhotos(3, named: "c")
    try vaultRun(["backup", remote])
    XCTAssertTrue(try vaultRun(["backup", "--check", remote]).stdout.hasSuffix(": all whole\n"))
    let photos = try vault.listJSON()
    let space = (try vault.spaceFolder() as NSString).lastPathComponent
    let ids = photos.compactMap { $0["id"] as? String }
    let names = photos.compactMap { $0["name"] as? String }
    let current = remote + "/current/" + space
    var flipped = try fileBytes(current + "/Photo/" + ids[0])
    flipped[flipped.count / 2] ^= 0x01
    try writeBytes(flipped, to: current + "/Photo/" + ids[0])
    XCTAssertEqual(truncate(current + "/Photo/" + ids[1], 100), 0)
    try FileManager.default.removeItem(atPath: current + "/Thumb/" + ids[2])

    let byPhoto = try vaultRun(["backup", "--check", remote], password: "correct horse", expecting: 1)
    XCTAssertEqual(
      byPhoto.stdout.split(separator: "\n").dropLast().sorted(),
      [
        "damaged on '\(remote)': 1 '\(names[0])' (id \(ids[0])) original: its MD5 differs from the one the backup sent",
        "damaged on '\(remote)': 2 '\(names[1])' (id \(ids[1])) original: 100 bytes, the backup sent \(try fileBytes(vault.vault + "/" + space + "/Photo/" + ids[1]).count)",
        "missing on '\(remote)': 3 '\(names[2])' (id \(ids[2])) thumbnail",
      ].sorted(), byPhoto.stdout)
    XCTAssertTrue(byPhoto.stdout.hasSuffix("by MD5: 1 missing, 2 damaged\n"), byPhoto.stdout)
    XCTAssertTrue(byPhoto.stderr.contains("error: the backup on '\(remote)' is not whole"), byPhoto.stderr)

    let byPath = try vaultRun(["backup", "--check", remote], expecting: 1)
    XCTAssertTrue(
      byPath.stdout.contains("damaged on '\(remote)': \(space)/Photo/\(ids[0]): its MD5 differs"),
      byPath.stdout)
    XCTAssertTrue(byPath.stdout.contains("missing on '\(remote)': \(space)/Thumb/\(ids[2])\n"), byPath.stdout)

    // Reading back finds the same, and authenticates the photos it can open.
    let downloaded = try vaultRun(
      ["backup", "--check", "--download", remote], password: "correct horse", expecting: 1)
    XCTAssertEqual(
      downloaded.stdout.split(separator: "\n").filter {
        $0.hasPrefix("damaged on") || $0.hasPrefix("missing on")
      }.count, 3, downloaded.stdout)
    XCTAssertTrue(downloaded.stdout.contains("photo files authenticated)"), downloaded.stdout)
    // The next backup sends again what the check named, the flipped one of the same size too.
    XCTAssertTrue(try vaultRun(["backup", remote]).stdout.hasPrefix("backed up 3 files ("))
    let again = try vaultRun(["backup", "--check", "--download", remote])
    XCTAssertTrue(again.stdout.hasSuffix(": all whole\n"), again.stdout)
    XCTAssertEqual(try snapshot(remote + "/current"), try snapshot(vault.vault))
  }

  func testRemovedFilesAreKeptAsideForTheGraceThenDeleted() throws {
    _ = try addPhotos(3, named: "r")
    try vaultRun(["backup", remote])
    let id = try XCTUnwrap(vault.listJSON().first?["id"] as? String)
    try vaultRun(["delete", "--now", "--yes", id], password: "correct horse")
    let run = try vaultRun(["backup", remote])
    XCTAssertTrue(run.stdout.contains("; 2 removed files kept aside until "), run.stdout)
    let stamps = try FileManager.default.contentsOfDirectory(atPath: remote + "/removed")
    XCTAssertEqual(stamps.count, 1)
    let space = (try vault.spaceFolder() as NSString).lastPathComponent
    XCTAssertEqual(
      Set(fileStates(remote + "/removed/" + stamps[0]).keys),
      [space + "/Photo/" + id, space + "/Thumb/" + id])
    XCTAssertNil(fileStates(remote + "/current")[space + "/Photo/" + id])
    // Within the grace, they stay; a folder 31 days old goes.
    XCTAssertTrue(try vaultRun(["backup", remote]).stdout.hasSuffix("it was up to date\n"))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: remote + "/removed"), stamps)
    let old = Date().addingTimeInterval(-31 * 86_400)
    var time = tm()
    var seconds = time_t(old.timeIntervalSince1970)
    gmtime_r(&seconds, &time)
    let name = String(
      format: "%04d%02d%02dT%02d%02d%02dZ", Int(time.tm_year) + 1900, Int(time.tm_mon) + 1, Int(time.tm_mday),
      Int(time.tm_hour), Int(time.tm_min), Int(time.tm_sec))
    try FileManager.default.moveItem(
      atPath: remote + "/removed/" + stamps[0], toPath: remote + "/removed/" + name)
    let purge = try vaultRun(["backup", remote])
    XCTAssertTrue(purge.stdout.contains("deleted 1 folder of removed files past their grace"), purge.stdout)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: remote + "/removed"), [])
    // --keep-removed 0: what goes is deleted at once.
    let second = try XCTUnwrap(vault.listJSON().first?["id"] as? String)
    try vaultRun(["delete", "--now", "--yes", second], password: "correct horse")
    XCTAssertTrue(
      try vaultRun(["backup", remote, "--keep-removed", "0"]).stdout.contains("deleted 1 folder"))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: remote + "/removed"), [])
  }

  func testABlobDeletedForGoodDuringTheBackupIsNotListedOnTheRemote() throws {
    _ = try addPhotos(4, named: "d")
    let id = try XCTUnwrap(vault.listJSON().first?["id"] as? String)
    // An rclone that, before its first copy of blobs, has the photo deleted for good: the
    // captured journal lists it, and its blobs are gone before rclone or the hash reads them.
    let fake = folder + "/rclone"
    try """
    #!/bin/sh
    if [ "$1" = copy ] && [ ! -e '\(folder)/deleted' ]; then
      touch '\(folder)/deleted'
      VAULT_PASSWORD='correct horse' '\(vault.executable)' delete --vault '\(vault.vault)' --now --yes \(id) >/dev/null 2>&1
    fi
    exec /usr/bin/rclone "$@"
    """.write(toFile: fake, atomically: true, encoding: .utf8)
    chmod(fake, 0o755)
    environment["VAULT_RCLONE"] = fake
    try vaultRun(["backup", remote])
    XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/deleted"))
    let copy = VaultRunner(vault: remote + "/current", workingDirectory: folder)
    let verify = try copy.run(["verify"])
    XCTAssertEqual(verify.status, 0, verify.stdout)
    XCTAssertEqual(try copy.listJSON().count, 3)
  }

  /// A backup that waits for a space's lock while a password change renames the space's
  /// folder captures the folder under its new name.
  func testASpaceRenamedWhileTheBackupWaitsForItIsCapturedUnderItsNewName() throws {
    _ = try addPhotos(2, named: "p")
    let space = try vault.spaceFolder()
    let holder = try FolderLockHolder(space)
    defer { holder.end() }
    let running = try vault.start(
      ["backup", remote], password: nil, environment: environment, errorsInOutput: true)
    XCTAssertNotNil(
      running.waitForLine { $0.hasPrefix("waiting for ") }, "the backup did not wait for the lock")
    let renamed = vault.vault + "/" + String(repeating: "0", count: 32)
    try FileManager.default.moveItem(atPath: space, toPath: renamed)
    holder.end()
    let run = try running.finish()
    XCTAssertEqual(run.status, 0, run.stdout)
    XCTAssertEqual(differences(try snapshot(remote + "/current"), try snapshot(vault.vault)), [])
  }

  /// Files the vault lost (a wiped disk, damage) go aside on the remote like removals, and
  /// the summary says so rather than that the backup was up to date.
  func testFilesLostLocallyAreKeptAside() throws {
    _ = try addPhotos(2, named: "l")
    try vaultRun(["backup", remote])
    let space = try vault.spaceFolder()
    let id = try XCTUnwrap(vault.listJSON().first?["id"] as? String)
    try FileManager.default.removeItem(atPath: space + "/Photo/" + id)
    let run = try vaultRun(["backup", remote])
    XCTAssertTrue(run.stdout.hasPrefix("backed up 0 files (0 B) to '\(remote)' in "), run.stdout)
    XCTAssertTrue(run.stdout.contains(" s; 1 removed file kept aside until "), run.stdout)
    XCTAssertFalse(run.stdout.contains("up to date"), run.stdout)
  }

  /// The manifest is written before files are moved aside: a backup killed right after the
  /// move (an rclone that moves, then dies) left a manifest naming files already in removed/.
  func testABackupKilledAfterMovingFilesAsideLeavesAManifestOfCurrent() throws {
    _ = try addPhotos(2, named: "k")
    try vaultRun(["backup", remote])
    let space = try vault.spaceFolder()
    let id = try XCTUnwrap(vault.listJSON().first?["id"] as? String)
    try FileManager.default.removeItem(atPath: space + "/Photo/" + id)
    let fake = folder + "/rclone"
    try """
    #!/bin/sh
    /usr/bin/rclone "$@" || exit $?
    case "$1 $*" in move*/removed/*) kill -9 $PPID; exit 1 ;; esac
    """.write(toFile: fake, atomically: true, encoding: .utf8)
    chmod(fake, 0o755)
    environment["VAULT_RCLONE"] = fake
    _ = try vault.run(["backup", remote], password: nil, environment: environment)
    let manifest = try String(contentsOfFile: remote + "/manifest", encoding: .utf8)
    for line in manifest.split(separator: "\n") {
      let path = String(line.split(separator: " ", maxSplits: 2)[2])
      XCTAssertTrue(
        FileManager.default.fileExists(atPath: remote + "/current/" + path), "\(path) is not in current/")
    }
  }

  /// A blob of the vault whose size changed (blobs never change: damage, or ransomware)
  /// does not replace the backup's whole copy; the backup says so and fails, and restore
  /// --missing brings the backup's copy back.
  func testAVaultBlobChangedInSizeDoesNotReplaceTheBackupsCopy() throws {
    let (space, tag, id) = try backedUpPhoto(named: "x")
    let original = try fileBytes(space + "/Photo/" + id)
    try writeBytes(original + Array("encrypted by someone".utf8), to: space + "/Photo/" + id)
    let manifest = try fileBytes(remote + "/manifest")
    let run = try vaultRun(["backup", remote], expecting: 1)
    XCTAssertTrue(
      run.stderr.contains("warning: '\(tag)/Photo/\(id)' differs in size from the copy the backup holds"),
      run.stderr)
    XCTAssertTrue(
      run.stderr.contains("error: 1 file of the vault differs from the backup's and was not sent"))
    XCTAssertTrue(
      try fileBytes(remote + "/current/\(tag)/Photo/\(id)") == original, "the backup's copy replaced")
    XCTAssertTrue(try fileBytes(remote + "/manifest") == manifest, "the manifest changed")
    XCTAssertTrue(
      try vaultRun(["restore", remote, "--missing"], password: "correct horse").stdout.hasPrefix(
        "restored 1 file ("))
    XCTAssertTrue(try fileBytes(space + "/Photo/" + id) == original, "not restored")
    XCTAssertTrue(try vaultRun(["backup", remote]).stdout.hasSuffix("it was up to date\n"))
  }

  /// A journal file the backup replaces (here made longer by hand) is kept aside in
  /// removed/ as it was, like a removed file.
  func testAReplacedJournalFileIsKeptAside() throws {
    _ = try addPhotos(1, named: "j")
    try vaultRun(["backup", remote])
    let space = try vault.spaceFolder()
    let tag = (space as NSString).lastPathComponent
    let segment = try XCTUnwrap(
      FileManager.default.contentsOfDirectory(atPath: space + "/Journal").first { $0.hasPrefix("j-") })
    let before = try fileBytes(space + "/Journal/" + segment)
    try writeBytes(before + [0xFF, 0xFE], to: space + "/Journal/" + segment)
    try vaultRun(["backup", remote])
    let stamps = try FileManager.default.contentsOfDirectory(atPath: remote + "/removed")
    XCTAssertEqual(stamps.count, 1)
    XCTAssertEqual(try fileBytes(remote + "/removed/\(stamps[0])/\(tag)/Journal/\(segment)"), before)
    XCTAssertEqual(try fileBytes(remote + "/current/\(tag)/Journal/\(segment)"), before + [0xFF, 0xFE])
  }

  /// The reviewer's ransomware repro: every file of the vault replaced by random bytes of
  /// the same size, then a backup (refused while vault.json is junk; then run with it
  /// whole). Each of the backup's files is still on the remote as it was: in current/ (a
  /// blob of the same size is not sent again) or kept aside in removed/<stamp> (the files
  /// the backup replaced).
  func testAVaultWhoseEveryFileWasReplacedLeavesTheBackupsVersionsOnTheRemote() throws {
    _ = try addPhotos(2, named: "r")
    try vaultRun(["backup", remote])
    let manifest = try String(contentsOfFile: remote + "/manifest", encoding: .utf8)
    let paths = manifest.split(separator: "\n").map { String($0.split(separator: " ", maxSplits: 2)[2]) }
    var originals: [String: [UInt8]] = [:]
    for path in paths {
      let bytes = try fileBytes(vault.vault + "/" + path)
      originals[path] = bytes
      try writeBytes(
        bytes.map { _ in UInt8.random(in: 0...255, using: &random) }, to: vault.vault + "/" + path)
    }
    let refused = try vaultRun(["backup", remote], expecting: 1)
    XCTAssertTrue(refused.stderr.contains("vault.json' is not a usable vault header"), refused.stderr)
    // With the header left whole, the backup runs and replaces the journal and keys.
    try writeBytes(try XCTUnwrap(originals["vault.json"]), to: vault.vault + "/vault.json")
    let run = try vault.run(["backup", remote], password: nil, environment: environment)
    let stamps = (try? FileManager.default.contentsOfDirectory(atPath: remote + "/removed")) ?? []
    for (path, original) in originals {
      let copies = [remote + "/current/" + path] + stamps.map { remote + "/removed/\($0)/" + path }
      XCTAssertTrue(
        copies.contains { (try? fileBytes($0)) == original },
        "\(path): the backup's version is gone\n" + run.stderr)
    }
  }

  /// An original offloaded to the remote (its stub in Offloaded/, no Photo/ file) stays in
  /// the backup's current/, and in its manifest with the stub's size and MD5.
  func testAnOffloadedOriginalStaysOnTheRemote() throws {
    let (space, tag, id) = try backedUpPhoto(named: "o")
    let original = try fileBytes(space + "/Photo/" + id)
    let manifest = try String(contentsOfFile: remote + "/manifest", encoding: .utf8)
    let line = try XCTUnwrap(manifest.split(separator: "\n").first { $0.hasSuffix(" \(tag)/Photo/\(id)") })
    try FileManager.default.createDirectory(atPath: space + "/Offloaded", withIntermediateDirectories: true)
    try writeBytes(
      Array("\(original.count) \(line.split(separator: " ")[1])\n".utf8), to: space + "/Offloaded/" + id)
    try FileManager.default.removeItem(atPath: space + "/Photo/" + id)
    XCTAssertTrue(try vaultRun(["backup", remote]).stdout.hasSuffix("it was up to date\n"))
    XCTAssertEqual(try fileBytes(remote + "/current/\(tag)/Photo/\(id)"), original)
    XCTAssertFalse(FileManager.default.fileExists(atPath: remote + "/current/\(tag)/Offloaded"))
    XCTAssertEqual(try String(contentsOfFile: remote + "/manifest", encoding: .utf8), manifest)
    XCTAssertTrue(try vaultRun(["backup", "--check", remote]).stdout.hasSuffix("by MD5: all whole\n"))
  }

  /// Another vault backed up to a remote holding this one's backup would move every file
  /// of it aside (to be purged after the grace): refused, naming the remote, the remote as
  /// it was.
  func testABackupOfAnotherVaultToAnExistingRemoteIsRefused() throws {
    _ = try addPhotos(1, named: "a")
    try vaultRun(["backup", remote])
    let before = try snapshot(remote)
    let otherFolder = folder + "/other"
    try FileManager.default.createDirectory(atPath: otherFolder, withIntermediateDirectories: true)
    let other = try VaultRunner.initialized(in: otherFolder)
    let run = try other.run(["backup", remote], password: nil, environment: environment)
    XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
    XCTAssertEqual(
      run.stderr,
      "error: '\(remote)' holds the backup of another vault (its vault.json differs from this vault's)\n"
        + "hint: back this vault up to a new remote path\n")
    XCTAssertEqual(try snapshot(remote), before)
    XCTAssertTrue(try vaultRun(["backup", remote]).stdout.hasSuffix("it was up to date\n"))
  }

  /// A manifest emptied on the remote listed nothing to check, and --check said "all
  /// whole": a backup listing no file is never whole.
  func testCheckOfAManifestListingNoFileFails() throws {
    _ = try addPhotos(1, named: "e")
    try vaultRun(["backup", remote])
    try writeBytes([], to: remote + "/manifest")
    let run = try vaultRun(["backup", "--check", remote], expecting: 1)
    XCTAssertEqual(
      run.stderr, "error: the manifest on '\(remote)' lists no file: the backup there is not whole\n")
  }

  /// A manifest is read into memory: one past 64 MiB (here the backup's own lines, repeated)
  /// is an error naming it, not memory without bound.
  func testAManifestPast64MiBIsRefused() throws {
    _ = try addPhotos(1, named: "b")
    try vaultRun(["backup", remote])
    let manifest = try fileBytes(remote + "/manifest")
    let copies = (64 << 20) / manifest.count + 1
    try writeBytes(Array([[UInt8]](repeating: manifest, count: copies).joined()), to: remote + "/manifest")
    let run = try vaultRun(["backup", "--check", remote], expecting: 1)
    XCTAssertEqual(
      run.stderr, "error: '\(remote)': manifest gave more than the 67108864 bytes asked for\n")
  }

  func testARemoteThatCannotBeReachedGivesOneLineNamingIt() throws {
    _ = try addPhotos(1, named: "u")
    let unreachable = try unreachableSFTPRemote(keysIn: folder)
    for arguments in [
      ["backup", unreachable], ["backup", "--check", unreachable], ["restore", unreachable, "--to", "x"],
    ] {
      let run = try vaultRun(arguments, expecting: 1)
      XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
      XCTAssertTrue(run.stderr.hasPrefix("error: cannot reach '\(unreachable)': "), run.stderr)
    }
  }

  func testRestoreMissingBringsBackWhatVerifyNamed() throws {
    _ = try addPhotos(3, named: "m")
    try vaultRun(["backup", remote])
    let whole = try snapshot(vault.vault)
    let space = try vault.spaceFolder()
    let ids = try vault.listJSON().compactMap { $0["id"] as? String }
    try FileManager.default.removeItem(atPath: space + "/Thumb/" + ids[0])
    var damaged = try fileBytes(space + "/Photo/" + ids[1])
    damaged[damaged.count - 1] ^= 0xFF
    try writeBytes(damaged, to: space + "/Photo/" + ids[1])
    XCTAssertEqual(try vault.run(["verify"]).status, 1)
    let run = try vaultRun(["restore", remote, "--missing"], password: "correct horse")
    XCTAssertTrue(run.stdout.hasPrefix("restored 2 files ("), run.stdout)
    XCTAssertEqual(try snapshot(vault.vault), whole)
    XCTAssertEqual(try vault.run(["verify"]).status, 0)
    XCTAssertTrue(try vaultRun(["restore", remote, "--missing"]).stdout.hasSuffix(": nothing was missing\n"))
  }

  /// The reviewer's repro: a backup's copy zeroed, with its MD5 written into the manifest,
  /// replaced the vault's healthy original. A file the vault has is never replaced on the
  /// manifest's word: without a password it is named and kept; with one, kept since it
  /// authenticates (and the backup's copy does not).
  func testRestoreMissingNeverReplacesAHealthyFileWithTheBackupsCopy() throws {
    let (space, tag, id) = try backedUpPhoto(named: "z")
    let original = try fileBytes(space + "/Photo/" + id)
    let zeroed = [UInt8](repeating: 0, count: original.count)
    try writeBytes(zeroed, to: remote + "/current/\(tag)/Photo/\(id)")
    let zeroedMD5 = try XCTUnwrap(FileMD5.of(remote + "/current/\(tag)/Photo/\(id)")).md5
    let manifest = try String(contentsOfFile: remote + "/manifest", encoding: .utf8)
    let lines = manifest.split(separator: "\n").map { line in
      line.hasSuffix(" \(tag)/Photo/\(id)") ? "\(zeroed.count) \(zeroedMD5) \(tag)/Photo/\(id)" : String(line)
    }
    try writeBytes(Array((lines.joined(separator: "\n") + "\n").utf8), to: remote + "/manifest")
    let whole = try snapshot(vault.vault)
    let bare = try vaultRun(["restore", remote, "--missing"], expecting: 1)
    XCTAssertTrue(
      bare.stdout.contains("kept: \(tag)/Photo/\(id) differs from the backup's copy\n"), bare.stdout)
    XCTAssertTrue(
      bare.stderr.hasSuffix("error: 1 file differs from the backup's and was left as it is\n"), bare.stderr)
    XCTAssertEqual(try snapshot(vault.vault), whole)
    let keyed = try vaultRun(["restore", remote, "--missing"], password: "correct horse", expecting: 1)
    XCTAssertTrue(
      keyed.stdout.contains("kept: \(tag)/Photo/\(id) differs from the backup's copy\n"), keyed.stdout)
    XCTAssertEqual(try snapshot(vault.vault), whole)
    XCTAssertTrue(try fileBytes(space + "/Photo/" + id) == original, "the healthy original was replaced")
  }

  /// An offloaded original (its stub there, its Photo/ file gone) is not missing: restore
  /// --missing leaves it on the remote (it fetched every offloaded original back, undoing
  /// the offload, before).
  func testRestoreMissingLeavesOffloadedOriginalsOffloaded() throws {
    let (space, _, id) = try backedUpPhoto(named: "s")
    try offloadByHand(id, in: space)
    try vaultRun(["restore", remote, "--missing"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/Photo/" + id), "fetched back")
    XCTAssertTrue(FileManager.default.fileExists(atPath: space + "/Offloaded/" + id), "the stub is gone")
  }

  /// The tryout's: a backup to a remote other than the one an original was offloaded to
  /// said nothing, listed the original in its manifest, and its --check then named it
  /// missing (and a restore failed) however often it ran again.
  func testABackupToAnotherRemoteSaysOffloadedOriginalsAreNotInIt() throws {
    let (space, _, id) = try backedUpPhoto(named: "o")
    try offloadByHand(id, in: space)
    let second = folder + "/second"
    let backup = try vaultRun(["backup", second])
    XCTAssertTrue(
      backup.stderr.hasPrefix(
        "warning: 1 offloaded original is not in this backup: they are on the remote they were offloaded to"),
      backup.stderr)
    let check = try vaultRun(["backup", "--check", second])
    XCTAssertTrue(check.stdout.hasSuffix(": all whole\n"), check.stdout)
    XCTAssertFalse(
      try String(contentsOfFile: second + "/manifest", encoding: .utf8).contains("Photo/" + id), "listed")
    // The remote it was offloaded to keeps it in its manifest, and says nothing.
    XCTAssertEqual(try vaultRun(["backup", remote]).stderr, "")
    XCTAssertTrue(try String(contentsOfFile: remote + "/manifest", encoding: .utf8).contains("Photo/" + id))
  }

  /// The reviewer's repro: a manifest line whose path climbs out of `Photo/` moved the
  /// space's key out of the vault. Now the manifest is refused and the vault left as it was.
  func testRestoreMissingRefusesAManifestPathOutsideTheVault() throws {
    let (space, tag, _) = try backedUpPhoto(named: "t")
    let key = try fileBytes(space + "/key")
    try FileManager.default.createDirectory(atPath: remote + "/" + tag, withIntermediateDirectories: true)
    try writeBytes(key, to: remote + "/\(tag)/key")
    let md5 = try XCTUnwrap(
      String(contentsOfFile: remote + "/manifest", encoding: .utf8).split(separator: "\n")
        .first { $0.hasSuffix(" \(tag)/key") }?.split(separator: " ")[1])
    let manifest = try fileBytes(remote + "/manifest")
    try writeBytes(
      manifest + Array("\(key.count) \(md5) \(tag)/Photo/../../../\(tag)/key\n".utf8),
      to: remote + "/manifest")
    let line = manifest.filter { $0 == UInt8(ascii: "\n") }.count + 1
    let whole = try snapshot(vault.vault)
    let run = try vaultRun(["restore", remote, "--missing"], expecting: 1)
    XCTAssertEqual(run.stderr, "error: '\(remote)/manifest': line \(line) names no file of a vault\n")
    XCTAssertEqual(try snapshot(vault.vault), whole)
    XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/" + tag))
  }

  func testRestoreRefusesAFolderHoldingOtherFiles() throws {
    _ = try addPhotos(1, named: "f")
    try vaultRun(["backup", remote])
    let target = folder + "/other"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    try writeBytes(Array("mine".utf8), to: target + "/notes.txt")
    let run = try vaultRun(["restore", remote, "--to", target], expecting: 1)
    XCTAssertEqual(
      run.stderr,
      "error: '\(target)' is not empty and not an earlier restore of this backup: it holds 'notes.txt'\n")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), ["notes.txt"])
  }
}
