import CSodium
import Foundation
import XCTest

/// The documented limits (README, "Limits"): beyond each, a clear error and no change.
final class LimitsTests: XCTestCase {
  func testTheLongestFileNameRoundTrips() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder)
    // 255 bytes is the longest name Linux file systems take; this one is multi-byte too.
    let name = String(repeating: "写", count: 83) + "xy.jpg"
    XCTAssertEqual(name.utf8.count, 255)
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: folder + "/" + name)
    XCTAssertEqual(try vault.run(["add", folder + "/" + name]).status, 0)
    XCTAssertEqual(try vault.run(["export", "--all", "--to", "out"]).status, 0)
    XCTAssertEqual(try fileBytes(folder + "/out/" + name), try fileBytes(fixturesPath + "/photo.jpg"))
    // A second export of it cannot add " (1)" within 255 bytes: a clear error, nothing left.
    let again = try vault.run(["export", "--all", "--to", "out"])
    XCTAssertEqual(again.status, 1)
    XCTAssertTrue(again.stderr.contains("File name too long"), again.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/out"), [name])
  }

  func testKDFLimitsBeyondTheBoundsAreRefusedWhenOpening() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder)
    let headerPath = vault.vault + "/vault.json"
    let original = try String(contentsOfFile: headerPath, encoding: .utf8)
    let salt = try XCTUnwrap(original.range(of: "[0-9a-f]{32}", options: .regularExpression)).lowerBound
    let saltText = String(original[salt..<original.index(salt, offsetBy: 32)])
    for (ops, mem, complaint) in [
      (UInt64(1), UInt64(67_108_864), "opslimit 1"), (2, 8192, "memlimit 8192"),
      (1_000_000, 67_108_864, "opslimit 1000000"), (2, 1 << 40, "memlimit 1099511627776"),
    ] {
      let forged = """
        {"checksum":"\(checksum(ops, mem, saltText))","format":"vault","kdf":{"algorithm":"argon2id13",\
        "memlimit":\(mem),"opslimit":\(ops),"salt":"\(saltText)"},"version":1}
        """
      try forged.write(toFile: headerPath, atomically: true, encoding: .utf8)
      let before = try snapshot(vault.vault)
      let run = try vault.run(["list"])
      XCTAssertEqual(run.status, 1)
      XCTAssertTrue(run.stderr.contains("out of bounds") && run.stderr.contains(complaint), run.stderr)
      XCTAssertEqual(try snapshot(vault.vault), before)
    }
  }

  private func checksum(_ ops: UInt64, _ mem: UInt64, _ salt: String) -> String {
    let text = Array("vault|1|argon2id13|\(ops)|\(mem)|\(salt)".utf8)
    var digest = [UInt8](repeating: 0, count: 16)
    crypto_generichash(&digest, 16, text, UInt64(text.count), nil, 0)
    return digest.map { String(format: "%02x", $0) }.joined()
  }
}
