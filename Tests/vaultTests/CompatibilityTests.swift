import Foundation
import XCTest

/// The vault committed under Tests/Compatibility must keep opening, bit for bit.
final class CompatibilityTests: XCTestCase {
  static let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Compatibility/vault-v1").path

  func testTheVersion1VaultStillOpensAndExportsBitForBit() throws {
    let folder = try makeTemporaryFolder(self)
    // A copy: opening takes locks and a repair could write.
    try FileManager.default.copyItem(atPath: Self.committed, toPath: folder + "/vault")
    let vault = VaultRunner(vault: folder + "/vault", workingDirectory: folder)
    let password = "compatibility v1"
    XCTAssertEqual(try vault.run(["list"], password: "compatibility v2").status, 3)
    let list = try vault.run(["list", "--json"], password: password)
    XCTAssertEqual(list.status, 0, list.stderr)
    let entries = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
    XCTAssertEqual(
      entries.compactMap { $0["name"] as? String }, ["photo.jpg", "palette.png", "orientation-6.jpg"])
    XCTAssertEqual(entries.compactMap { $0["selected"] as? Bool }, [false, true, false])
    XCTAssertEqual(entries.last?["orientation"] as? Int, 6)
    XCTAssertEqual([entries.last?["width"] as? Int, entries.last?["height"] as? Int], [48, 32])
    XCTAssertEqual(try vault.run(["verify"], password: password).status, 0)
    XCTAssertEqual(try vault.run(["export", "--all", "--to", "out"], password: password).status, 0)
    let expected = [
      "photo.jpg": "9a10371b1828ef9cc0f2e08d4635955d9b5a05023524e9ca99149950bae0a5a5",
      "palette.png": "c141ffa77556a3bff2c21e95b546b3942cb5394492e3d8ecfa1649306977ac0a",
      "orientation-6.jpg": "f594603fe9aa30fe6c2445a560030ef49088b060f2fe74496f3a35e73829d2e8",
    ]
    for (name, hash) in expected {
      XCTAssertEqual(sha256(try fileBytes(folder + "/out/" + name)), hash, name)
    }
    XCTAssertEqual(
      try vault.run(["export", "--all", "--thumbs", "--to", "thumbs"], password: password).status, 0)
  }
}
