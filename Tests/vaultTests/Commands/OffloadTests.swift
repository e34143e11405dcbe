import Foundation
import XCTest

/// `vault offload` and `vault keep` with the built binary over rclone's local backend: the
/// originals leave the disk once the remote holds them whole, every command still reads
/// them (list shows where, export gives them back bit for bit, verify checks them on the
/// remote), keep brings them back; a remote that cannot be reached is one line.
final class OffloadTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var remote = ""
  /// The fixtures imported, by name.
  let names = VaultRunner.offloadFixtures
  /// rclone without the user's config.
  let environment = ["RCLONE_CONFIG": "/nonexistent"]

  override func setUpWithError() throws {
    (folder, vault) = try VaultRunner.withOffloadFixtures(for: self)
    remote = folder + "/remote"
  }

  func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> VaultRun {
    try vault.run(arguments, environment: environment)
  }

  /// The `where` of each listed photo, by name.
  func places() throws -> [String: String] {
    let run = try run(["list", "--json"])
    XCTAssertEqual(run.status, 0, run.stderr)
    var result: [String: String] = [:]
    for item in try VaultRunner.jsonObjects(run.stdout) {
      result[item["name"] as! String] = item["where"] as? String
    }
    return result
  }

  /// Every original exports as its fixture was, bit for bit.
  func assertExportsBitForBit(file: StaticString = #filePath, line: UInt = #line) throws {
    let out = "out-\(UUID().uuidString)"
    let exported = try run(["export", "--all", "--to", out])
    XCTAssertEqual(exported.status, 0, exported.stderr, file: file, line: line)
    for name in names {
      XCTAssertEqual(
        try fileBytes(folder + "/" + out + "/" + name), try fileBytes(fixturesPath + "/" + name), name,
        file: file, line: line)
    }
  }

  func originals() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: try vault.spaceFolder() + "/Photo").filter {
      !$0.hasPrefix(".")
    }
  }

  func testOffloadListExportVerifyAndKeep() throws {
    let offloaded = try run(["offload", "--all", "--to", remote])
    XCTAssertEqual(offloaded.status, 0, offloaded.stderr)
    XCTAssertTrue(
      offloaded.stdout.hasSuffix("offloaded 3 originals to '\(remote)' (3 sent)\n"), offloaded.stdout)
    XCTAssertEqual(try originals(), [])
    XCTAssertEqual(try places(), Dictionary(uniqueKeysWithValues: names.map { ($0, "remote") }))
    XCTAssertTrue(try run(["list"]).stdout.contains(" remote "))
    XCTAssertTrue(try run(["info"]).stdout.contains("offloaded:       3 originals on '\(remote)'"))
    try assertExportsBitForBit()
    let verify = try run(["verify"])
    XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    // Again: nothing left to send or remove.
    let again = try run(["offload", "--all", "--to", remote])
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertTrue(
      again.stdout.hasSuffix("offloaded 0 originals to '\(remote)' (0 sent); 3 originals there already\n"),
      again.stdout)
    // Another remote while these are on the first: refused, with the way out.
    let elsewhere = try run(["offload", "--all", "--to", folder + "/other"])
    XCTAssertEqual(elsewhere.status, 1)
    XCTAssertTrue(elsewhere.stderr.contains("offloaded to '\(remote)'"), elsewhere.stderr)
    XCTAssertTrue(elsewhere.stderr.contains("vault keep --all"), elsewhere.stderr)
    let kept = try run(["keep", "--all"])
    XCTAssertEqual(kept.status, 0, kept.stderr)
    XCTAssertTrue(kept.stdout.hasSuffix("brought back 3 originals\n"), kept.stdout)
    XCTAssertEqual(try originals().count, 3)
    XCTAssertEqual(try places(), Dictionary(uniqueKeysWithValues: names.map { ($0, "local") }))
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: try vault.spaceFolder() + "/Offloaded/" + (try originals()[0])))
    try assertExportsBitForBit()
  }

  /// While the copies are sent, the space is not held: another writer goes ahead (rclone's
  /// copy waits here until it has); the offload completes after it.
  func testAnUploadHoldsUpNoOtherCommand() throws {
    let rclone = folder + "/rclone-waiting"
    try """
    #!/bin/sh
    if [ "$1" = copy ]; then
      touch '\(folder)/copying'
      while [ ! -e '\(folder)/go' ]; do sleep 0.05; done
    fi
    exec /usr/bin/rclone "$@"
    """.write(toFile: rclone, atomically: true, encoding: .utf8)
    chmod(rclone, 0o755)
    let running = try vault.start(
      ["offload", "--all", "--to", remote], environment: environment.merging(["VAULT_RCLONE": rclone]) { $1 })
    while !FileManager.default.fileExists(atPath: folder + "/copying") && running.process.isRunning {
      usleep(20_000)
    }
    let selected = try vault.run(["select", "1"], environment: ["VAULT_LOCK_WAIT": "0"])
    XCTAssertEqual(selected.status, 0, selected.stderr)
    XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/go", contents: nil))
    let ended = try running.finish()
    XCTAssertEqual(ended.status, 0, ended.stderr)
    XCTAssertEqual(try places(), Dictionary(uniqueKeysWithValues: names.map { ($0, "remote") }))
    XCTAssertEqual(
      try run(["list", "--json", "--selected"]).stdout.components(separatedBy: "\"id\"").count, 2)
  }

  /// verify checks offloaded originals on the remote: --quick by the remote's listing
  /// (size and MD5 against the stub), in full by reading them; a flipped byte, a copy cut
  /// short and a missing copy are each named by photo.
  func testVerifyNamesADamagedOrMissingRemoteCopy() throws {
    XCTAssertEqual(try run(["offload", "--all", "--to", remote]).status, 0)
    XCTAssertEqual(try run(["verify", "--quick"]).status, 0)
    let copies = remote + "/current/" + ((try vault.spaceFolder()) as NSString).lastPathComponent + "/Photo/"
    let ids = try FileManager.default.contentsOfDirectory(atPath: copies).sorted()
    var flipped = try fileBytes(copies + ids[0])
    flipped[flipped.count / 2] ^= 1
    try writeBytes(flipped, to: copies + ids[0])
    try writeBytes(Array(try fileBytes(copies + ids[1]).dropLast(10)), to: copies + ids[1])
    try FileManager.default.removeItem(atPath: copies + ids[2])
    for depth in [["--quick"], []] {
      let verify = try run(["verify"] + depth)
      XCTAssertEqual(verify.status, 1, "\(depth)")
      let damaged = verify.stdout.split(separator: "\n").filter {
        $0.contains("damaged") || $0.contains("missing")
      }
      XCTAssertEqual(damaged.count, 3, "\(depth): \(verify.stdout)")
      for id in ids { XCTAssertTrue(verify.stdout.contains(id), "\(depth): \(id) in \(verify.stdout)") }
    }
  }

  /// An offloaded photo in Recently Deleted keeps its stub (it restores and reads); deleted
  /// for good, its stub goes with its other files, and verify finds nothing left over.
  func testDeletingAnOffloadedPhotoForGoodRemovesItsStub() throws {
    XCTAssertEqual(try run(["offload", "--all", "--to", remote]).status, 0)
    let stubs = try vault.spaceFolder() + "/Offloaded"
    XCTAssertEqual(try run(["delete", "1", "--yes"]).status, 0)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: stubs).count, 3)
    XCTAssertEqual(try run(["trash", "restore", "1"]).status, 0)
    try assertExportsBitForBit()
    let deleted = try run(["delete", "--now", "1", "--yes"])
    XCTAssertEqual(deleted.status, 0, deleted.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: stubs).count, 2)
    let verify = try run(["verify"])
    XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
  }

  /// verify --repair takes an offloaded original for present: it never calls it missing
  /// (and never hints at deleting its photo).
  func testRepairTakesOffloadedOriginalsForPresent() throws {
    XCTAssertEqual(try run(["offload", "--all", "--to", remote]).status, 0)
    let repair = try run(["verify", "--repair"])
    XCTAssertEqual(repair.status, 0, repair.stderr)
    XCTAssertFalse(
      (repair.stdout + repair.stderr).contains("without its original"), repair.stdout + repair.stderr)
    XCTAssertFalse((repair.stdout + repair.stderr).contains("delete"), repair.stdout + repair.stderr)
    XCTAssertEqual(try places(), Dictionary(uniqueKeysWithValues: names.map { ($0, "remote") }))
  }

  /// A new password renames the space's folder, under whose name the remote keeps the
  /// offloaded originals: passwd and recover refuse while any is offloaded, and change
  /// nothing; after keep, passwd works.
  func testPasswdAndRecoverRefuseWhileOriginalsAreOffloaded() throws {
    let made = try run(["recovery-key"])
    let key = try XCTUnwrap(
      made.stdout.split(separator: "\n").first { $0.hasPrefix("recovery key: ") }?.dropFirst(14))
    try "new horse battery\n".write(toFile: folder + "/new", atomically: true, encoding: .utf8)
    try "\(key)\n".write(toFile: folder + "/key", atomically: true, encoding: .utf8)
    XCTAssertEqual(try run(["offload", "1", "--to", remote]).status, 0)
    let before = try snapshot(vault.vault)
    for command in [
      ["passwd", "--new-password-file", "new"],
      ["recover", "--recovery-key-file", "key", "--new-password-file", "new"],
    ] {
      let refused = try vault.run(command, password: command[0] == "recover" ? nil : "correct horse")
      XCTAssertEqual(refused.status, 1, command[0])
      XCTAssertTrue(
        refused.stderr.contains("1 original is offloaded") && refused.stderr.contains("vault keep --all"),
        refused.stderr)
      XCTAssertEqual(try snapshot(vault.vault), before, command[0])
    }
    XCTAssertEqual(try run(["keep", "--all"]).status, 0)
    XCTAssertEqual(try run(["passwd", "--new-password-file", "new"]).status, 0)
  }

  /// An offload killed after its last original went leaves its writer's mark; the next
  /// offload, with nothing left to send, still tidies after it, as every writer does.
  func testAnOffloadWithNothingLeftStillTidiesAfterAKilledOne() throws {
    XCTAssertEqual(try run(["offload", "--all", "--to", remote]).status, 0)
    let mark = try vault.spaceFolder() + "/.tmp-writer-0011223344556677"
    XCTAssertTrue(FileManager.default.createFile(atPath: mark, contents: nil))
    let again = try run(["offload", "--all", "--to", remote])
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: mark))
    let verify = try run(["verify", "--quick"])
    XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
  }

  /// A remote whose copy is gone: each read names it in one line, and the rest go on.
  func testAMissingRemoteCopyIsOneLineAndTheOthersStillRead() throws {
    let offloaded = try run(["offload", "1", "--to", remote])
    XCTAssertEqual(offloaded.status, 0, offloaded.stderr)
    try FileManager.default.removeItem(atPath: remote)
    let exported = try run(["export", "--all", "--to", "out"])
    XCTAssertEqual(exported.status, 1)
    let errors = exported.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
    XCTAssertEqual(errors.count, 2, exported.stderr)
    XCTAssertTrue(errors[0].contains("'\(remote)'") && errors[0].contains("not found"), exported.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").count, 2)
  }

  /// An SFTP server that is not there: one line naming the remote, nothing changed.
  func testAnUnreachableRemoteIsOneLineAndChangesNothing() throws {
    let port = try freePort()
    let unreachable = ":sftp,host=127.0.0.1,port=\(port),user=nobody:vault"
    let before = try snapshot(vault.vault)
    let run = try run(["offload", "--all", "--to", unreachable])
    XCTAssertEqual(run.status, 1)
    let lines = run.stderr.split(separator: "\n")
    XCTAssertEqual(lines.count, 1, run.stderr)
    XCTAssertTrue(lines[0].hasPrefix("error: cannot reach '\(unreachable)': "), run.stderr)
    XCTAssertEqual(try snapshot(vault.vault), before)
  }

  /// A crafted stub whose size is beyond any blob a record allows: export names it as
  /// damaged (it crashed on an overflow), the other photos export.
  func testAStubOfAnImpossibleSizeIsDamageNotACrash() throws {
    XCTAssertEqual(try run(["offload", "1", "--to", remote]).status, 0)
    let stubs = try vault.spaceFolder() + "/Offloaded/"
    let id = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: stubs).first)
    let md5 = String(try String(contentsOfFile: stubs + id, encoding: .utf8).split(separator: " ")[1])
    try "9223372036854775807 \(md5)".write(toFile: stubs + id, atomically: false, encoding: .utf8)
    let exported = try run(["export", "--all", "--to", "out"])
    XCTAssertEqual(exported.status, 1, exported.stderr)
    let errors = exported.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
    XCTAssertEqual(errors.count, 2, exported.stderr)
    XCTAssertTrue(errors.first?.contains("Offloaded/\(id) is not one vault writes") == true, exported.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").count, 2)
  }

  /// A remote copy longer than its stub says (a server padding it) is refused by keep
  /// before it is downloaded: the listing's size is compared with the stub first.
  func testKeepRefusesACopyOfAnotherSizeBeforeDownloadingIt() throws {
    XCTAssertEqual(try run(["offload", "1", "--to", remote]).status, 0)
    let copies = remote + "/current/" + ((try vault.spaceFolder()) as NSString).lastPathComponent + "/Photo/"
    let id = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: copies).first)
    let size = try fileBytes(copies + id).count
    try writeBytes(try fileBytes(copies + id) + [UInt8](repeating: 0, count: 1 << 20), to: copies + id)
    let kept = try run(["keep", "1"])
    XCTAssertEqual(kept.status, 1, kept.stderr)
    XCTAssertTrue(kept.stderr.contains("holds \(size + (1 << 20)) bytes, its stub says \(size)"), kept.stderr)
    XCTAssertEqual(try places()[names[0]], "remote")
  }

  /// The secrets of a connection string never show: not in a summary, `vault info` or an
  /// error (rclone's own line included).
  func testTheSecretsOfAConnectionStringAreMasked() throws {
    let secret = ":local,pass=hunter2,token=\"a,b\":" + remote
    let masked = ":local,pass=***,token=***:" + remote
    let port = try freePort()
    let unreachable = try run(
      ["offload", "2", "--to", ":sftp,host=127.0.0.1,port=\(port),user=nobody,pass=hunter2:vault"])
    XCTAssertEqual(unreachable.status, 1)
    XCTAssertTrue(
      unreachable.stderr.hasPrefix("error: ':sftp,host=127.0.0.1,port=\(port),user=nobody,pass=***:vault': "),
      unreachable.stderr)
    let offloaded = try run(["offload", "1", "--to", secret])
    XCTAssertEqual(offloaded.status, 0, offloaded.stderr)
    XCTAssertTrue(offloaded.stdout.contains("to '\(masked)'"), offloaded.stdout)
    let info = try run(["info"])
    XCTAssertTrue(info.stdout.contains("on '\(masked)'"), info.stdout)
    for run in [offloaded, info, unreachable] {
      XCTAssertFalse((run.stdout + run.stderr).contains("hunter2"), run.stdout + run.stderr)
    }
  }

  /// A relative local path with a ':' in it (the vault folder, restore's --to) is a path,
  /// not a remote rclone would look up.
  func testLocalPathsWithAColonAreNotTakenForRemotes() throws {
    try FileManager.default.moveItem(atPath: folder + "/vault", toPath: folder + "/cam:2024")
    let colon = VaultRunner(vault: "cam:2024", workingDirectory: folder)
    for arguments in [
      ["offload", "--all", "--to", remote], ["keep", "--all"], ["backup", folder + "/backup"],
    ] {
      let run = try colon.run(arguments, environment: environment)
      XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
    }
    let restored = try colon.run(["restore", folder + "/backup", "--to", "out:1"], environment: environment)
    XCTAssertEqual(restored.status, 0, restored.stderr)
    XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/out:1/vault.json"), restored.stdout)
  }

  /// A range read (view, export, the mount) gives up on a server that accepts and never
  /// answers after one 20 s wait, not rclone's three of 60 s: its options override the
  /// common ones, which come first.
  func testRangeReadsWaitOnceAndBriefly() throws {
    XCTAssertEqual(try run(["offload", "1", "--to", remote]).status, 0)
    let rclone = folder + "/rclone-logging"
    try """
    #!/bin/sh
    echo "$*" >> '\(folder)/rclone.log'
    exec /usr/bin/rclone "$@"
    """.write(toFile: rclone, atomically: true, encoding: .utf8)
    chmod(rclone, 0o755)
    let exported = try vault.run(
      ["export", "1", "--to", "out"], environment: environment.merging(["VAULT_RCLONE": rclone]) { $1 })
    XCTAssertEqual(exported.status, 0, exported.stderr)
    let reads = try String(contentsOfFile: folder + "/rclone.log", encoding: .utf8).split(separator: "\n")
      .filter { $0.hasPrefix("cat ") }
    XCTAssertFalse(reads.isEmpty)
    for read in reads {
      XCTAssertTrue(
        read.contains("--ask-password=false --timeout 20s --low-level-retries 1 --offset "), String(read))
    }
  }
}
