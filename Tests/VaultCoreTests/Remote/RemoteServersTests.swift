import Foundation
import VaultTestSupport
import XCTest

/// The servers that the tests of backup, restore and offload use work with rclone as those
/// commands use it: a copy there and back bit for bit, byte ranges read with `rclone cat
/// --offset --count`, hashes listed where the server gives them; and stopping a server
/// leaves none of its processes.
final class RemoteServersTests: XCTestCase {
  func testRcloneCopiesReadsRangesAndListsMD5AndSHA1OverSFTP() throws {
    let server = try SFTPServer.start(for: self)
    let folder = try makeTemporaryFolder(self)
    try checkRoundTrip(through: server, at: server.remote(folder + "/remote"), hashes: ["md5", "sha1"])
  }

  /// A user with no shell (SFTP alone, as many hosts give): rclone can run no md5sum there,
  /// so it lists sizes without hashes, and still reads ranges.
  func testRcloneListsNoHashesForAnSFTPOnlyUser() throws {
    let server = try SFTPServer.start(for: self, shell: false)
    let folder = try makeTemporaryFolder(self)
    try checkRoundTrip(through: server, at: server.remote(folder + "/remote"), hashes: [])
  }

  /// A single-part upload and a multipart one (rclone stores the MD5 of the latter in its
  /// metadata): both list their MD5.
  func testRcloneCopiesReadsRangesAndListsMD5OverS3() throws {
    let server = try S3Server.start(for: self)
    try checkRoundTrip(through: server, at: server.remote("single"), hashes: ["md5"])
    try checkRoundTrip(
      through: server, at: server.remote("multipart"), hashes: ["md5"], minimumSize: 6 << 20,
      options: ["--s3-upload-cutoff", "5M", "--s3-chunk-size", "5M"])
  }

  func testStoppingTheS3ServerLeavesNoProcess() throws {
    let server = try S3Server.start(for: self)
    let family = ProcessTable.family(of: server.processIdentifier)
    server.stop()
    XCTAssertEqual(family.filter(ProcessTable.isAlive), [], "moto's processes left running")
  }

  /// With a session open (a remote command running), stopping the server ends sshd, the
  /// connection's processes and the command; the client sees its connection closed.
  func testStoppingTheSFTPServerEndsItsConnections() throws {
    let server = try SFTPServer.start(for: self)
    let client = try WatchedProcess([
      "/usr/bin/ssh", "-p", String(server.port), "-i", server.keyFile, "-o",
      "UserKnownHostsFile=" + server.knownHostsFile, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
      server.user + "@127.0.0.1", "echo session open; exec tail -f /dev/null",
    ])
    defer { client.stop() }
    XCTAssertNotNil(client.firstLine(within: 60) { $0 == "session open" ? $0 : nil }, client.printed)
    let family = ProcessTable.family(of: server.processIdentifier)
    XCTAssertGreaterThan(family.count, 1, "no process of the connection under sshd")
    server.stop()
    let left = family.filter(ProcessTable.isAlive)
    XCTAssertEqual(left, [], "sshd's processes left running")
    guard left.isEmpty else { return }  // (the client's connection is still open)
    XCTAssertEqual(client.waitUntilExit(), 255, "ssh: \(client.printed)")
  }

  // MARK: Helpers

  /// Copies a file of random bytes (seeded; the seed is in every message) to `remote` with
  /// `rclone copy`, lists it with its hashes, reads byte ranges of it (offset 10, count 5,
  /// and random ones, one past the end) and all of it with `rclone cat`.
  private func checkRoundTrip(
    through server: RemoteServer, at remote: String, hashes: Set<String>, minimumSize: Int = 16,
    options: [String] = []
  ) throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    let bytes = (0..<Int.random(in: minimumSize...minimumSize + 300_000, using: &generator)).map { _ in
      UInt8.random(in: 0...255, using: &generator)
    }
    let local = try makeTemporaryFolder(self)
    try writeBytes(bytes, to: local + "/photo.bin")
    let environment = server.environment
    try TestRclone.run(["copy", local, remote] + options, environment: environment)

    let listing = try TestRclone.run(["lsjson", "-R", "--hash", remote], environment: environment)
    let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: listing) as? [[String: Any]])
    XCTAssertEqual(entries.map { $0["Path"] as? String }, ["photo.bin"], "seed \(seed)")
    XCTAssertEqual(entries.first?["Size"] as? Int, bytes.count, "seed \(seed)")
    let listed = entries.first?["Hashes"] as? [String: String] ?? [:]
    XCTAssertEqual(Set(listed.keys), hashes, "seed \(seed)")
    for name in hashes {
      XCTAssertEqual(listed[name], try digest(name, of: local + "/photo.bin"), "\(name), seed \(seed)")
    }

    let file = remote + "/photo.bin"
    var ranges = [(10, 5), (bytes.count - 3, 10)]
    for _ in 0..<3 {
      let offset = Int.random(in: 0..<bytes.count, using: &generator)
      ranges.append((offset, Int.random(in: 1...bytes.count - offset, using: &generator)))
    }
    for (offset, count) in ranges {
      let read = try TestRclone.run(
        ["cat", "--offset", String(offset), "--count", String(count), file], environment: environment)
      XCTAssertEqual(
        Array(read), Array(bytes[offset..<min(offset + count, bytes.count)]),
        "offset \(offset) count \(count), seed \(seed)")
    }
    XCTAssertEqual(Array(try TestRclone.run(["cat", file], environment: environment)), bytes, "seed \(seed)")
  }

  /// The hex digest of a local file by coreutils (md5sum, sha1sum): computed apart from rclone.
  private func digest(_ name: String, of path: String) throws -> String {
    let printed = try runProgram(["/usr/bin/\(name)sum", path])
    return String(String(decoding: printed, as: UTF8.self).prefix { $0 != " " })
  }
}
