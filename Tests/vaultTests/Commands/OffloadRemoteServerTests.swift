import Foundation
import XCTest

/// `vault offload` and `vault keep` over real remotes: OpenSSH's SFTP on 127.0.0.1 with a
/// shell (MD5 from the server) and without (MD5 from a download), and an S3 API (moto). A
/// remote that stops answering is one line a photo, never a hang.
final class OffloadRemoteServerTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  let names = VaultRunner.offloadFixtures

  override func setUpWithError() throws {
    (folder, vault) = try VaultRunner.withOffloadFixtures(for: self)
  }

  /// Offloads everything to `remote`, checks list, export and verify, then keeps it all.
  func assertRoundTrip(
    _ server: RemoteServer, remote: String, file: StaticString = #filePath, line: UInt = #line
  )
    throws
  {
    let environment = server.environment
    let offloaded = try vault.run(["offload", "--all", "--to", remote], environment: environment)
    XCTAssertEqual(offloaded.status, 0, offloaded.stderr, file: file, line: line)
    XCTAssertTrue(
      offloaded.stdout.hasSuffix("offloaded 3 originals to '\(remote)' (3 sent)\n"), offloaded.stdout)
    let listed = try VaultRunner.jsonObjects(
      try vault.run(["list", "--json"], environment: environment).stdout)
    XCTAssertEqual(
      listed.map { $0["where"] as? String }, ["remote", "remote", "remote"], file: file, line: line)
    let exported = try vault.run(["export", "--all", "--to", "out"], environment: environment)
    XCTAssertEqual(exported.status, 0, exported.stderr, file: file, line: line)
    for name in names {
      XCTAssertEqual(
        try fileBytes(folder + "/out/" + name), try fileBytes(fixturesPath + "/" + name), name, file: file,
        line: line)
    }
    let verify = try vault.run(["verify"], environment: environment)
    XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr, file: file, line: line)
    let kept = try vault.run(["keep", "--all"], environment: environment)
    XCTAssertEqual(kept.status, 0, kept.stderr, file: file, line: line)
    let back = try VaultRunner.jsonObjects(
      try vault.run(["list", "--json"], environment: environment).stdout)
    XCTAssertEqual(back.map { $0["where"] as? String }, ["local", "local", "local"], file: file, line: line)
  }

  func testSFTPWithAShellRoundTrips() throws {
    let server = try SFTPServer.start(for: self)
    try assertRoundTrip(server, remote: server.remote(folder + "/remote"))
  }

  /// No shell on the server: rclone has no MD5 of a copy, so it is downloaded to be hashed.
  func testSFTPWithoutAShellRoundTrips() throws {
    let server = try SFTPServer.start(for: self, shell: false)
    try assertRoundTrip(server, remote: server.remote(folder + "/remote"))
  }

  func testS3RoundTrips() throws {
    let server = try S3Server.start(for: self)
    try assertRoundTrip(server, remote: server.remote("vault"))
  }

  /// Offloads photos 1 and 2 over SFTP, then kills sshd (its keys and rclone's settings
  /// still there: the port refuses).
  private func offloadTwoToAServerThenStopIt() throws -> (SFTPServer, String) {
    let server = try SFTPServer.start(for: self)
    let remote = server.remote(folder + "/remote")
    let offloaded = try vault.run(["offload", "1", "2", "--to", remote], environment: server.environment)
    XCTAssertEqual(offloaded.status, 0, offloaded.stderr)
    kill(server.processIdentifier, SIGKILL)
    return (server, remote)
  }

  /// The server goes away: export names each offloaded photo in one line naming the
  /// remote, the others export, and vault does not wait out the connection timeout for
  /// each photo.
  func testAServerThatStopsAnsweringIsOneLineAPhoto() throws {
    let (server, remote) = try offloadTwoToAServerThenStopIt()
    let exported = try vault.run(["export", "--all", "--to", "out"], environment: server.environment)
    XCTAssertEqual(exported.status, 1)
    let lines = exported.stderr.split(separator: "\n").map(String.init)
    for (line, name) in zip(lines, ["photo.jpg", "rgba.png"]) {
      XCTAssertTrue(line.hasPrefix("error: '\(name)' not exported: cannot reach '\(remote)': "), line)
    }
    XCTAssertEqual(lines.count, 3, exported.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").count, 1)
  }

  /// The server goes away: verify (quick or full) cannot know whether the offloaded
  /// originals are intact, says so in one line naming the remote, fails, and never calls
  /// them damaged nor hints at deleting them (their only copy is on the remote).
  func testVerifyWithTheServerGoneSaysWhatItCouldNotCheck() throws {
    let (server, remote) = try offloadTwoToAServerThenStopIt()
    for depth in [["--quick"], []] {
      let verify = try vault.run(["verify"] + depth, environment: server.environment)
      XCTAssertEqual(verify.status, 1, "\(depth)")
      let lines = verify.stderr.split(separator: "\n").map(String.init)
      XCTAssertEqual(lines.count, 1, "\(depth): \(verify.stderr)")
      XCTAssertTrue(
        lines.first?.hasPrefix("error: could not check 2 offloaded originals: cannot reach '\(remote)': ")
          == true,
        "\(depth): \(verify.stderr)")
      XCTAssertFalse(verify.stdout.contains("damaged"), "\(depth): \(verify.stdout)")
      XCTAssertFalse(verify.stderr.contains("delete"), "\(depth): \(verify.stderr)")
      XCTAssertTrue(
        verify.stdout.hasSuffix(": 2 offloaded originals not checked\n"), "\(depth): \(verify.stdout)")
    }
  }
}
