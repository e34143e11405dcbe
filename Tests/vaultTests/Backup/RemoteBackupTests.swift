import Foundation
import XCTest

/// `vault backup`, `--check` and `restore` over real servers: OpenSSH's SFTP (with a shell,
/// which gives MD5s, and without, which gives sizes only) and an S3 API (moto).
final class RemoteBackupTests: XCTestCase {
  private var folder = ""
  private var vault: VaultRunner!
  private var environment: [String: String] = [:]
  private var random = SeededGenerator(seed: 3434)

  override func setUpWithError() throws {
    try requireRclone()
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  func testARoundTripOverSFTP() throws {
    let server = try SFTPServer.start(for: self)
    try roundTrip(server, to: server.remote(folder + "/sftp"), comparedBy: "by MD5")
  }

  func testARoundTripOverSFTPWithoutAShellIsCheckedBySize() throws {
    let server = try SFTPServer.start(for: self, shell: false)
    try roundTrip(server, to: server.remote(folder + "/sftp"), comparedBy: "by size only")
  }

  func testARoundTripOverS3() throws {
    let server = try S3Server.start(for: self)
    try roundTrip(server, to: server.remote("vault"), comparedBy: "by MD5")
  }

  /// Backs up, checks, backs up one more photo (3 files sent), loses a file on the remote
  /// (named by --check, sent again by the next backup), restores bit for bit.
  private func roundTrip(_ server: RemoteServer, to remote: String, comparedBy comparison: String) throws {
    environment = backupEnvironment(
      folder, server.environment)
    try add(3)
    let first = try run(["backup", remote])
    XCTAssertTrue(first.stdout.hasPrefix("backed up 11 files ("), first.stdout + "\n" + first.stderr)
    let check = try run(["backup", "--check", remote])
    XCTAssertTrue(check.stdout.contains(comparison) && check.stdout.hasSuffix(": all whole\n"), check.stdout)
    try add(1)
    XCTAssertTrue(try run(["backup", remote]).stdout.hasPrefix("backed up 3 files ("))
    let space = (try vault.spaceFolder() as NSString).lastPathComponent
    let id = try XCTUnwrap(vault.listJSON().first?["id"] as? String)
    try TestRclone.run(["deletefile", remote + "/current/\(space)/Thumb/\(id)"], environment: environment)
    let damaged = try run(["backup", "--check", remote], expecting: 1)
    XCTAssertTrue(damaged.stdout.hasPrefix("missing on '\(remote)': \(space)/Thumb/\(id)\n"), damaged.stdout)
    XCTAssertTrue(try run(["backup", remote]).stdout.hasPrefix("backed up 1 file ("))
    let restored = folder + "/restored"
    let restore = try run(["restore", remote, "--to", restored])
    XCTAssertTrue(
      restore.stdout.hasPrefix("restored \(fileStates(vault.vault).count) files ("), restore.stdout)
    XCTAssertEqual(differences(try snapshot(restored), try snapshot(vault.vault)), [])
  }

  private func add(_ count: Int) throws {
    let photos = try writeNoisePhotos(
      count, into: folder + "/in", named: "r\(random.next() % 1000)", random: &random)
    XCTAssertEqual(try vault.run(["add"] + photos).status, 0)
  }

  @discardableResult
  private func run(
    _ arguments: [String], expecting status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line
  ) throws -> VaultRun {
    let run = try vault.run(arguments, password: nil, environment: environment)
    XCTAssertEqual(run.status, status, run.stdout + run.stderr, file: file, line: line)
    print("TIMING", arguments.prefix(2), run.microseconds / 1000, "ms")
    return run
  }
}
