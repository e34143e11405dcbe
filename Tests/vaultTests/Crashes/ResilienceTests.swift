import Foundation
import Synchronization
import XCTest

/// Failing writes and concurrent writers.
final class ResilienceTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  func fixtures(_ names: [String]) -> [String] { names.map { fixturesPath + "/" + $0 } }

  /// Runs vault under bash with a file size limit (RLIMIT_FSIZE, in KiB); SIGXFSZ is
  /// ignored so that writes past the limit fail with EFBIG, as on a full disk.
  func runLimited(kilobytes: Int, _ arguments: [String]) throws -> VaultRun {
    if ProcessInfo.processInfo.environment["VAULT_TEST_SANITIZER"] == "thread" {
      throw XCTSkip("ThreadSanitizer's runtime cannot start under a small RLIMIT_FSIZE")
    }
    let quoted = ([VaultRunner.binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(kilobytes); exec \(quoted)"]
    var environment = ProcessInfo.processInfo.environment
    environment["VAULT_DIR"] = vault.vault
    environment["VAULT_PASSWORD"] = "correct horse"
    process.environment = environment
    let errors = Pipe()
    let output = Pipe()
    process.standardError = errors
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outText = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let errText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return VaultRun(status: process.terminationStatus, stdout: outText, stderr: errText)
  }

  /// A valid JPEG of about `kilobytes` KiB: a small one with data after its end marker.
  func bigPhoto(kilobytes: Int) throws -> String {
    let path = folder + "/big.jpg"
    let bytes = try fileBytes(fixturesPath + "/photo.jpg") + [UInt8](repeating: 0x5A, count: kilobytes * 1024)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  func testAFileTooLargeToWriteFailsAloneAndLeavesNothing() throws {
    let big = try bigPhoto(kilobytes: 64)
    let run = try runLimited(kilobytes: 32, ["add", big] + fixtures(["gray.png", "palette.png"]))
    XCTAssertEqual(run.status, 1, run.stderr)
    XCTAssertTrue(run.stderr.contains("big.jpg': cannot store it in the vault: File too large"), run.stderr)
    XCTAssertTrue(run.stdout.contains("added 2 photos, skipped 0 duplicates, failed 1"), run.stdout)
    let verify = try vault.run(["verify", "--quiet"])
    XCTAssertEqual(verify.status, 0, verify.stdout)
  }

  func testAJournalThatCannotBeWrittenLeavesTheVaultAsItWas() throws {
    XCTAssertEqual(try vault.run(["add"] + fixtures(["gray.png", "photo.jpg"])).status, 0)
    let before = try snapshot(vault.vault)
    // A journal record cannot be written under a limit of 0 bytes per file.
    for command in [["select", "--all"], ["delete", "1", "--yes"]] {
      let limited = try runLimited(kilobytes: 0, command)
      XCTAssertEqual(limited.status, 1, "\(command): \(limited.stderr)")
      XCTAssertTrue(limited.stderr.contains("File too large"), limited.stderr)
      XCTAssertEqual(try snapshot(vault.vault), before, "\(command)")
    }
    // The photos' blobs are written, then the journal refuses the record that lists them.
    let journal = try readOnly(folder: "Journal")
    defer { journal.restore() }
    let more = fixtures(["rgba.png", "palette.png", "gray.jpg", "quad-420.jpg"])
    let run = try vault.run(["add"] + more)
    XCTAssertEqual(run.status, 1, run.stdout)
    XCTAssertTrue(run.stderr.contains("Journal"), run.stderr)
    XCTAssertFalse(run.stdout.contains("added /"), "nothing may be reported added: \(run.stdout)")
    journal.restore()
    XCTAssertEqual(try snapshot(vault.vault), before)
  }

  /// A folder of the space that even root cannot write in (immutable when run as root).
  final class ReadOnlyFolder {
    let path: String
    let immutable: Bool
    private var restored = false

    init(path: String) throws {
      self.path = path
      chmod(path, 0o500)
      var immutable = false
      if geteuid() == 0 {
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") { chmod(path, 0o700) }
        try requireTool("/usr/bin/chattr")
        immutable = runTool("/usr/bin/chattr", ["+i", path]) == 0
        if !immutable {
          chmod(path, 0o700)
          throw missing("chattr +i is not available here")
        }
      }
      self.immutable = immutable
    }

    func restore() {
      guard !restored else { return }
      restored = true
      if immutable { _ = runTool("/usr/bin/chattr", ["-i", path]) }
      chmod(path, 0o700)
    }
  }

  func readOnly(folder name: String) throws -> ReadOnlyFolder {
    let space = try FileManager.default.contentsOfDirectory(atPath: vault.vault).first { $0 != "vault.json" }!
    return try ReadOnlyFolder(path: vault.vault + "/" + space + "/" + name)
  }

  func testAReadOnlyPhotoFolderFailsCleanly() throws {
    XCTAssertEqual(try vault.run(["add"] + fixtures(["gray.png"])).status, 0)
    let before = try snapshot(vault.vault)
    let photoFolder = try readOnly(folder: "Photo")
    defer { photoFolder.restore() }
    let run = try vault.run(["add"] + fixtures(["photo.jpg", "rgba.png"]))
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(
      run.stderr.contains("photo.jpg': cannot store it in the vault: Operation not permitted"), run.stderr)
    XCTAssertEqual(try snapshot(vault.vault), before)
  }

  func testConcurrentWritersLoseNothing() throws {
    let first = fixtures(["gray.png", "rgba.png", "palette.png", "photo.jpg", "gray.jpg", "quad-420.jpg"])
    let second = fixtures(["rgb16.png", "interlaced.png", "progressive.jpg", "quad-444.jpg", "quad-422.jpg"])
    // Two imports at once.
    var results = runAtOnce(["add"] + first, ["add"] + second)
    XCTAssertEqual(results.map { $0?.status }, [0, 0])
    var list = try vault.listJSON()
    XCTAssertEqual(Set(list.compactMap { $0["name"] as? String }).count, first.count + second.count)
    XCTAssertEqual(list.count, first.count + second.count)
    // An import racing a delete of the selected photos.
    XCTAssertEqual(try vault.run(["select", "1-3"]).status, 0)
    let doomed = Set(list.prefix(3).compactMap { $0["id"] as? String })
    let third = fixtures(["quad-cmyk.jpg", "quad-ycck.jpg", "flat-teal.png", "orientation-1.jpg"])
    results = runAtOnce(["add"] + third, ["delete", "--selected", "--yes"])
    XCTAssertEqual(results.map { $0?.status }, [0, 0], "\(results)")
    list = try vault.listJSON()
    let ids = list.compactMap { $0["id"] as? String }
    XCTAssertEqual(ids.count, Set(ids).count, "a photo listed twice")
    XCTAssertTrue(doomed.isDisjoint(with: ids))
    XCTAssertEqual(list.count, first.count + second.count - 3 + third.count)
    XCTAssertEqual(try vault.run(["verify", "--quiet"]).status, 0)
  }

  /// Runs both commands at once, each on a thread of its own; their runs (nil for one that
  /// could not start), in order.
  private func runAtOnce(_ commands: [String]...) -> [VaultRun?] {
    let vault = self.vault!
    let runs = Mutex([VaultRun?](repeating: nil, count: commands.count))
    DispatchQueue.concurrentPerform(iterations: commands.count) { which in
      let run = try? vault.run(commands[which])
      runs.withLock { $0[which] = run }
    }
    return runs.withLock { $0 }
  }
}

private func runTool(_ path: String, _ arguments: [String]) -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  process.standardError = FileHandle.nullDevice
  guard (try? process.run()) != nil else { return -1 }
  process.waitUntilExit()
  return process.terminationStatus
}
