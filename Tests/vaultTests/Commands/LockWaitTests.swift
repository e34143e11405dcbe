import Foundation
import XCTest

/// A command that finds its space locked by another waits a bounded time, says what it
/// waits for, goes on once the lock is let go, and otherwise fails naming the holder.
final class LockWaitTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var holder: FolderLockHolder?

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.jpg"]).status, 0)
  }

  override func tearDownWithError() throws {
    holder?.end()
  }

  /// Takes the space's lock in another process and returns once it holds it.
  func holdTheSpace(exclusive: Bool = true) throws -> FolderLockHolder {
    let holding = try FolderLockHolder(try XCTUnwrap(vault.spaceFolders().first), exclusive: exclusive)
    holder = holding
    return holding
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
    holding.end()
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
    holding.end()
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
