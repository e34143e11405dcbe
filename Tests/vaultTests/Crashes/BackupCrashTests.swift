import Foundation
import XCTest

/// Kills `vault backup` and `vault restore` with SIGKILL at random (seeded) moments, over
/// rclone's local backend, between changes to the vault (photos added, some deleted for
/// good, so that every phase has work). After each kill of a backup, the remote's
/// `current/` opened as a vault lists only photos whose files it has; after each kill of a
/// restore, the folder is no vault yet or a whole one. Every few kills an unkilled run
/// completes: the remote (or the restored folder) is then the vault bit for bit, and
/// verifies. No rclone outlives a killed vault.
///
/// Kill moments do not depend on the machine's speed: a kind of run is first timed
/// unkilled, and a kill comes at a seeded fraction of that duration (timed again every few
/// kills, as the vault grows). `VAULT_TORTURE_KILLS` sets the kills in all (default 50,
/// two thirds of them backups) and `VAULT_TORTURE_SEED` the seed.
final class BackupCrashTests: XCTestCase {
  static let killsPerMeasurement = 4

  private var folder = ""
  private var vault: VaultRunner!
  private var remote = ""
  private var environment: [String: String] = [:]
  private var random = SeededGenerator(seed: 0)

  func testKilledBackupsAndRestoresLeaveNothingHalfListed() throws {
    try requireRclone()
    let settings = ProcessInfo.processInfo.environment
    let kills = settings["VAULT_TORTURE_KILLS"].flatMap(Int.init) ?? 50
    let seed = settings["VAULT_TORTURE_SEED"].flatMap(UInt64.init) ?? 20_261_129
    random = SeededGenerator(seed: seed)
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    remote = folder + "/remote"
    environment = backupEnvironment(folder)
    try add(6)
    let backups = try killBackups(kills - kills / 3)
    let restores = try killRestores(kills / 3)
    print("backup crash test (seed \(seed)): " + backups.description + "; " + restores.description)
    XCTAssertGreaterThan(backups.interrupted + restores.interrupted, kills / 2, "most kills came too late")
  }

  /// rclone dies with the vault that started it (its parent-death signal), even an rclone
  /// that would never end by itself.
  func testAKilledVaultTakesItsRcloneWithIt() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    let pidFile = folder + "/rclone.pid"
    let fake = folder + "/rclone"
    try "#!/bin/sh\necho $$ > '\(pidFile).tmp' && mv '\(pidFile).tmp' '\(pidFile)'\nexec sleep 1000\n"
      .write(toFile: fake, atomically: true, encoding: .utf8)
    chmod(fake, 0o755)
    let running = try vault.start(
      ["backup", folder + "/remote"], password: nil,
      environment: backupEnvironment(folder, ["VAULT_RCLONE": fake]))
    var pid: Int32?
    for _ in 0..<1000 where pid == nil {
      pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap {
        Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
      }
      if pid == nil { usleep(10_000) }
    }
    let rclone = try XCTUnwrap(pid, "the fake rclone never started")
    running.send(SIGKILL)
    _ = try running.finish()
    var gone = false
    for _ in 0..<500 where !gone {
      // Gone, or a zombie waiting for init to reap it.
      let status = try? String(contentsOfFile: "/proc/\(rclone)/stat", encoding: .utf8)
      gone = status == nil || status!.split(separator: " ").dropFirst(2).first == "Z"
      if !gone { usleep(10_000) }
    }
    XCTAssertTrue(gone, "rclone (pid \(rclone)) outlived the killed vault")
    if !gone { kill(rclone, SIGKILL) }
  }

  /// What the kills of one kind hit, by how far the run had come.
  private struct Tally: CustomStringConvertible {
    let kind: String
    var runs = 0
    var interrupted = 0
    var phases: [String: Int] = [:]

    var description: String {
      "\(kind): \(runs) runs, \(interrupted) killed while running ("
        + phases.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
    }
  }

  private func killBackups(_ kills: Int) throws -> Tally {
    var tally = Tally(kind: "backup")
    var microseconds = 0
    for kill in 0..<kills {
      if kill % Self.killsPerMeasurement == 0 {
        microseconds = try completeBackup()
        tally.runs += 1
      }
      try changeVault(step: kill)
      let before = fileStates(remote + "/current")
      let manifest = try? fileBytes(remote + "/manifest")
      let run = try vault.run(
        ["backup", remote], environment: environment, killAfter: Int(fraction() * Double(microseconds)))
      tally.runs += 1
      try waitForNoRclone()
      if run.status == SIGKILL { tally.interrupted += 1 }
      tally.phases[try phase(before: before, manifest: manifest), default: 0] += 1
      try checkRemoteListsOnlyWhatItHas("after backup kill \(kill)")
    }
    _ = try completeBackup()
    return tally
  }

  /// Runs a backup to its end, and checks that the remote's copy is the vault; its duration.
  private func completeBackup() throws -> Int {
    let run = try vault.run(["backup", remote], environment: environment)
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(
      differences(try snapshot(remote + "/current"), try snapshot(vault.vault)), [],
      "the remote is not the vault")
    let verify = try VaultRunner(vault: remote + "/current", workingDirectory: folder).run([
      "verify", "--quiet",
    ])
    XCTAssertEqual(verify.status, 0, verify.stdout)
    return run.microseconds
  }

  /// A photo added each step, one deleted for good every third.
  private func changeVault(step: Int) throws {
    try add(1)
    if step % 3 == 2, let id = try vault.listJSON().first?["id"] as? String {
      XCTAssertEqual(try vault.run(["delete", "--now", "--yes", id]).status, 0)
    }
  }

  private var added = 0
  private func add(_ count: Int) throws {
    let photos = try writeNoisePhotos(count, into: folder + "/in", named: "p\(added)", random: &random)
    added += 1
    let run = try vault.run(["add"] + photos)
    XCTAssertEqual(run.status, 0, run.stderr)
    for photo in photos { try FileManager.default.removeItem(atPath: photo) }
  }

  private func fraction() -> Double { Double(random.next() % 1_000_000) / 1_000_000 }

  /// How far a killed backup had come: new blobs sent, the journal moved in, removals done,
  /// the manifest written.
  private func phase(before: [String: FileState], manifest: [UInt8]?) throws -> String {
    let local = fileStates(vault.vault)
    let remoteFiles = fileStates(remote + "/current")
    let blobs = Set(local.keys.filter { $0.contains("/Photo/") || $0.contains("/Thumb/") })
    let newBlobs = blobs.subtracting(before.keys)
    let journal = local.filter { !blobs.contains($0.key) }
    if newBlobs.isDisjoint(with: remoteFiles.keys) && !newBlobs.isEmpty { return "1 before blobs" }
    if !newBlobs.isSubset(of: remoteFiles.keys) { return "2 among blobs" }
    if journal.contains(where: { remoteFiles[$0.key]?.size != $0.value.size }) { return "3 before journal" }
    if Set(remoteFiles.keys) != Set(local.keys) { return "4 before removals" }
    if (try? fileBytes(remote + "/manifest")) == manifest { return "5 before manifest" }
    return "6 after manifest"
  }

  /// The remote's `current/`, opened as a vault, lists only photos whose files it has:
  /// an orphan blob (sent, not listed yet) is no problem; a listed photo missing or damaged is.
  private func checkRemoteListsOnlyWhatItHas(_ moment: String) throws {
    let copy = VaultRunner(vault: remote + "/current", workingDirectory: folder)
    guard FileManager.default.fileExists(atPath: copy.vault + "/vault.json") else { return }
    let verify = try copy.run(["verify", "--quiet"])
    let broken = verify.stdout.split(separator: "\n").filter {
      ($0.hasPrefix("damaged") && !$0.contains("not in the index")) || $0.hasPrefix("missing")
        || $0.hasPrefix("listed twice")
    }
    XCTAssertEqual(broken, [], moment)
  }

  private func killRestores(_ kills: Int) throws -> Tally {
    var tally = Tally(kind: "restore")
    let whole = try snapshot(remote + "/current")
    var microseconds = 0
    var target = ""
    for kill in 0..<kills {
      if kill % Self.killsPerMeasurement == 0 {
        microseconds = try completeRestore(into: folder + "/measured-\(kill)", whole: whole)
        tally.runs += 1
      }
      // Every other kill lands on the folder the one before left: a restore goes on.
      if kill % 2 == 0 { target = folder + "/restored-\(kill)" }
      let run = try vault.run(
        ["restore", remote, "--to", target], environment: environment,
        killAfter: Int(fraction() * Double(microseconds)))
      tally.runs += 1
      try waitForNoRclone()
      if run.status == SIGKILL { tally.interrupted += 1 }
      let isVault = FileManager.default.fileExists(atPath: target + "/vault.json")
      tally.phases[isVault ? "whole" : "no vault yet", default: 0] += 1
      if isVault {
        XCTAssertEqual(
          differences(try snapshot(target), whole), [], "restore kill \(kill): a vault that is not whole")
      }
      if kill % 2 == 1 { _ = try completeRestore(into: target, whole: whole) }
    }
    return tally
  }

  /// Restores into `target` to the end (going on from a killed restore there); its duration.
  private func completeRestore(into target: String, whole: [String: String]) throws -> Int {
    let run = try vault.run(["restore", remote, "--to", target], environment: environment)
    XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
    XCTAssertEqual(differences(try snapshot(target), whole), [], "the restored folder is not the backup")
    return run.microseconds
  }

  /// Waits until no rclone of this test runs: a killed vault takes its rclone with it.
  private func waitForNoRclone() throws {
    for _ in 0..<500 {
      if rcloneProcesses().isEmpty { return }
      usleep(10_000)
    }
    XCTFail("rclone outlived the killed vault: \(rcloneProcesses())")
  }

  private func rcloneProcesses() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid in
      guard Int(pid) != nil, let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else {
        return nil
      }
      let command = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
      return command.hasPrefix("rclone ") && command.contains(remote) ? command : nil
    }
  }
}
