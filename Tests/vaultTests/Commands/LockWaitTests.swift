import Foundation
import XCTest

/// A command that finds its space locked by another waits a bounded time, says what it
/// waits for, goes on once the lock is let go, and otherwise fails naming the holder.
final class LockWaitTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var holder: Process?
  /// The process flock runs while it holds the lock.
  var sleeper: Int32?

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.jpg"]).status, 0)
  }

  override func tearDownWithError() throws {
    if let holder { end(holder) }
  }

  /// Takes the space's lock in another process (util-linux `flock`, which keeps it until
  /// it is killed) and returns once it holds it.
  func holdTheSpace(exclusive: Bool = true) throws -> Process {
    let space = try XCTUnwrap(vault.spaceFolders().first)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
    // -o: the command run under the lock does not inherit it, so killing flock lets go.
    // The command prints its pid, so that it is killed too.
    process.arguments = ["-o", exclusive ? "-x" : "-s", space, "sh", "-c", "echo $$; exec sleep 100000"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Closed here, so that a flock that fails ends the read below.
    try pipe.fileHandleForWriting.close()
    holder = process
    var line = Data()
    while !line.contains(0x0A) {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    sleeper = Int32(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    XCTAssertNotNil(sleeper, "flock did not take the lock")
    return process
  }

  /// Kills and reaps the holder and the command it runs. Not with `waitUntilExit`:
  /// Foundation can miss the SIGCHLD of a killed child and then waits forever.
  func end(_ process: Process) {
    if let sleeper { kill(sleeper, SIGKILL) }
    sleeper = nil
    kill(process.processIdentifier, SIGKILL)
    var status: Int32 = 0
    while waitpid(process.processIdentifier, &status, 0) < 0 && errno == EINTR {}
  }

  func testACommandThatWaitsTooLongNamesTheHolderAndChangesNothing() throws {
    let holding = try holdTheSpace()
    let before = try snapshot(vault.vault)
    for arguments in [["add", fixturesPath + "/gray.png"], ["select", "1"], ["delete", "1", "--yes"]] {
      let run = try vault.run(arguments, environment: ["VAULT_LOCK_WAIT": "0.2"])
      XCTAssertEqual(run.status, 1, "\(arguments)")
      XCTAssertTrue(
        run.stderr.hasSuffix(
          "error: the space is in use by flock (pid \(holding.processIdentifier)); waited 0.2 s for it (VAULT_LOCK_WAIT sets how long), try again when it is done\n"
        ), "\(arguments): \(run.stderr)")
    }
    XCTAssertEqual(try snapshot(vault.vault), before)
  }

  func testAWaitingCommandSaysSoAndGoesOnOnceTheLockIsLetGo() throws {
    let holding = try holdTheSpace()
    let adding = try vault.start(
      ["add", fixturesPath + "/gray.png"], environment: ["VAULT_LOCK_WAIT": "600"], errorsInOutput: true)
    let waiting = adding.waitForLine { $0.hasPrefix("waiting for") }
    XCTAssertEqual(
      waiting,
      "waiting for flock (pid \(holding.processIdentifier)), which is using the space (at most 600 s)…")
    end(holding)
    let run = try adding.finish()
    XCTAssertEqual(run.status, 0, run.stdout)
    XCTAssertEqual(try vault.listJSON().count, 2)
  }

  /// A reader is not bounded: a long import is no reason for `list` to fail.
  func testAReaderWaitsAsLongAsAWriterHoldsTheSpace() throws {
    let holding = try holdTheSpace()
    let listing = try vault.start(
      ["list", "--json"], environment: ["VAULT_LOCK_WAIT": "0"], errorsInOutput: true)
    let waiting = listing.waitForLine { $0.hasPrefix("waiting for") }
    XCTAssertEqual(waiting, "waiting for flock (pid \(holding.processIdentifier)), which is using the space…")
    end(holding)
    let run = try listing.finish()
    XCTAssertEqual(run.status, 0, run.stdout)
    XCTAssertTrue(run.stdout.contains("gray.jpg"), run.stdout)
  }

  /// Readers share the lock: a reader holding it does not keep another reader waiting.
  func testReadersDoNotWaitForEachOther() throws {
    _ = try holdTheSpace(exclusive: false)
    let run = try vault.run(["list", "--json"], environment: ["VAULT_LOCK_WAIT": "0"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let write = try vault.run(["select", "1"], environment: ["VAULT_LOCK_WAIT": "0"])
    XCTAssertEqual(write.status, 1)
    XCTAssertTrue(write.stderr.contains("is in use by flock"), write.stderr)
  }
}
