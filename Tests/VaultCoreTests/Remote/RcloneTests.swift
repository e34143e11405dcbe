import Foundation
import XCTest

@testable import VaultCore

/// The rclone runner against real rclone: the local backend (a folder is a remote), a
/// remote that cannot be reached, and fake rclones for what a real one seldom does.
final class RcloneTests: XCTestCase {
  private var folder = ""

  override func setUpWithError() throws {
    try requireRclone()
    folder = try makeTemporaryFolder(self)
  }

  private func rclone(_ extra: [String: String] = [:]) -> Rclone {
    Rclone(environment: rcloneTestEnvironment(extra))
  }

  /// A folder of a few files to send.
  private func makeSource() throws -> String {
    let source = folder + "/source"
    try FileManager.default.createDirectory(atPath: source + "/a", withIntermediateDirectories: true)
    try writeBytes(Array("hello".utf8), to: source + "/one")
    try writeBytes((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }, to: source + "/a/two")
    return source
  }

  func testACopyToAFolderRemoteReportsItsProgressAndListsBack() throws {
    let source = try makeSource()
    let remote = folder + "/remote"
    var seen: [RcloneProgress] = []
    let last = try rclone().transfer("copy", [], [source, remote + "/current"], remote: remote) {
      seen.append($0)
    }
    XCTAssertEqual(last.transfers, 2)
    XCTAssertEqual(last.bytes, 100_005)
    XCTAssertFalse(seen.isEmpty)
    let listing = try rclone().run("lsjson", ["-R", "--files-only"], [remote + "/current"], remote: remote)
    let paths = try (JSONSerialization.jsonObject(with: Data(listing)) as? [[String: Any]] ?? []).compactMap {
      $0["Path"] as? String
    }
    XCTAssertEqual(Set(paths), ["one", "a/two"])
  }

  func testATransferNamesTheFilesItCopiedAndNotOnesThatAreGone() throws {
    let source = try makeSource()
    let list = folder + "/list"
    try writeBytes(Array("one\ngone\na/two\n".utf8), to: list)
    let (progress, files) = try rclone().transferNamingFiles(
      "copy", ["--files-from-raw", list, "--no-check-dest"], [source, folder + "/remote"],
      remote: folder + "/remote")
    XCTAssertEqual(Set(files), ["one", "a/two"])
    XCTAssertEqual(progress.transfers, 2)
  }

  func testARangeIsReadIntoABoundedBuffer() throws {
    let source = try makeSource()
    let bytes = try rclone().read(
      ["--offset", "1000", "--count", "10"], source + "/a/two", remote: source, limit: 10)
    XCTAssertEqual(bytes, (1000..<1010).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    XCTAssertThrowsError(try rclone().read([], source + "/a/two", remote: source, limit: 10)) {
      XCTAssertEqual($0 as? RemoteError, .tooLong(remote: source, path: "a/two", limit: 10))
    }
  }

  func testAMissingFolderIsNamed() throws {
    let remote = folder + "/remote"
    XCTAssertThrowsError(try rclone().run("lsjson", ["-R"], [remote + "/current"], remote: remote)) {
      XCTAssertEqual($0 as? RemoteError, .notFound(remote: remote, path: "current"))
      XCTAssertEqual("\($0)", "'\(remote)': current not found")
    }
  }

  func testARemoteThatCannotBeReachedGivesOneLineNamingIt() throws {
    let remote = try unreachableSFTPRemote(keysIn: folder)
    XCTAssertThrowsError(try rclone().run("lsjson", [], [remote], remote: remote)) { error in
      let text = "\(error)"
      XCTAssertTrue(text.hasPrefix("cannot reach '\(remote)': "), text)
      XCTAssertTrue(text.contains("connection refused"), text)
      XCTAssertFalse(text.contains("\n"), text)
    }
  }

  /// A fake rclone at `path` that runs `script` (sh).
  private func fakeRclone(_ script: String) throws -> String {
    let path = folder + "/rclone"
    try ("#!/bin/sh\n" + script + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o755)
    return path
  }

  func testAnRcloneThatHangsIsStoppedByTheWatchdog() throws {
    let fake = try fakeRclone("exec sleep 1000")
    var runner = rclone(["VAULT_RCLONE": fake])
    runner.silenceLimit = 0.2
    XCTAssertThrowsError(try runner.run("lsjson", [], ["remote:x"], remote: "remote:")) {
      XCTAssertEqual(
        $0 as? RemoteError, .unreachable(remote: "remote:", reason: "no answer for 0.2 s; rclone was stopped")
      )
    }
  }

  func testStatsThatDoNotMoveAreNoSignOfLife() throws {
    let line = #"{"level":"notice","msg":"","stats":{"bytes":5,"transfers":0,"totalTransfers":1}}"#
    let fake = try fakeRclone("while true; do echo '\(line)' >&2; sleep 0.05; done")
    var runner = rclone(["VAULT_RCLONE": fake])
    runner.silenceLimit = 0.5
    var count = 0
    XCTAssertThrowsError(
      try runner.transfer("copy", [], ["a", "remote:x"], remote: "remote:") { _ in count += 1 }
    ) {
      XCTAssertEqual(
        $0 as? RemoteError, .unreachable(remote: "remote:", reason: "no answer for 0.5 s; rclone was stopped")
      )
    }
    XCTAssertGreaterThan(count, 1)
  }

  func testRcloneGetsNoPasswordAndArgumentsAsTheyAre() throws {
    let fake = try fakeRclone(#"env; for argument in "$@"; do printf '<%s>\n' "$argument"; done"#)
    let output = try rclone(["VAULT_RCLONE": fake, "VAULT_PASSWORD": "secret words"])
      .run("lsjson", [], ["remote:a b; rm -rf x"], remote: "remote:")
    let text = String(decoding: output, as: UTF8.self)
    XCTAssertFalse(text.contains("secret words"))
    XCTAssertTrue(text.contains("RCLONE_CONFIG=/nonexistent"))
    XCTAssertTrue(text.contains("<--contimeout>\n<15s>\n"), text)
    XCTAssertTrue(text.hasSuffix("<-->\n<remote:a b; rm -rf x>\n"), text)
  }

  func testAMissingRcloneIsNamed() throws {
    XCTAssertThrowsError(try rclone(["VAULT_RCLONE": folder + "/none"]).run("lsjson", [], ["x"], remote: "x"))
    {
      XCTAssertEqual("\($0)", "rclone is not installed: '\(folder)/none' is not there")
    }
  }

  func testTheReasonIsRclonesLastMeaningfulLine() {
    var log = RcloneLog()
    for line in [
      "2026/11/29 07:06:45 NOTICE: Config file \"/nonexistent\" not found - using defaults",
      "2026/11/29 07:06:45 Failed to create file system for \":sftp,host=h:x\": NewFs: couldn't connect SSH: refused",
    ] {
      XCTAssertNil(log.take(line))
    }
    XCTAssertEqual(log.lastError, "NewFs: couldn't connect SSH: refused")
    XCTAssertEqual(
      RcloneLog.reason(
        "Failed to lsjson with 2 errors: last error was: error in ListJSON: directory not found"),
      "error in ListJSON: directory not found")
    XCTAssertEqual(RcloneLog.reason("Failed to copy: permission denied"), "permission denied")
    var json = RcloneLog()
    _ = json.take(#"{"level":"error","msg":"Failed to copy: disk full","object":"a/b"}"#)
    XCTAssertEqual(json.lastError, "a/b: Failed to copy: disk full")
    XCTAssertEqual(
      json.take(
        #"{"level":"info","msg":"","stats":{"bytes":7,"totalBytes":9,"transfers":1,"totalTransfers":2,"speed":3.5,"eta":4}}"#
      ),
      RcloneProgress(
        bytes: 7, totalBytes: 9, transfers: 1, totalTransfers: 2, bytesPerSecond: 3.5, secondsLeft: 4))
  }
}
