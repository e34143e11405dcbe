import Foundation
import XCTest

/// The vaults committed under Tests/Compatibility must keep opening, bit for bit; their
/// expectations are the JSON files beside them.
final class CompatibilityTests: XCTestCase {
  static let folder = projectPath + "/Tests/Compatibility"
  /// The committed format-1 vault.
  static let committed = folder + "/vault-v1"

  struct Expectations: Decodable {
    struct Photo: Decodable {
      let name: String
      let selected: Bool
      let orientation: Int
      let width: Int
      let height: Int
      let sha256: String
    }
    let format: Int
    let password: String
    let photos: [Photo]
  }

  /// A copy of the committed vault `name` (opening takes locks, and writes change it).
  func copy(_ name: String) throws -> (VaultRunner, Expectations) {
    let folder = try makeTemporaryFolder(self)
    try FileManager.default.copyItem(atPath: Self.folder + "/" + name, toPath: folder + "/vault")
    let expectations = try JSONDecoder().decode(
      Expectations.self, from: Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + name + ".json")))
    return (VaultRunner(vault: folder + "/vault", workingDirectory: folder), expectations)
  }

  /// What every version must show of the vault: the photos in order, intact, bit for bit.
  func assertOpensAsExpected(_ vault: VaultRunner, _ expected: Expectations, _ when: String) throws {
    let password = expected.password
    let entries = try vault.listJSON(password: password)
    XCTAssertEqual(entries.compactMap { $0["name"] as? String }, expected.photos.map(\.name), when)
    XCTAssertEqual(entries.compactMap { $0["selected"] as? Bool }, expected.photos.map(\.selected), when)
    XCTAssertEqual(entries.compactMap { $0["orientation"] as? Int }, expected.photos.map(\.orientation), when)
    XCTAssertEqual(entries.compactMap { $0["width"] as? Int }, expected.photos.map(\.width), when)
    XCTAssertEqual(entries.compactMap { $0["height"] as? Int }, expected.photos.map(\.height), when)
    let verify = try vault.run(["verify"], password: password)
    XCTAssertEqual(verify.status, 0, "\(when): \(verify.stdout)")
    let out = "out-" + UUID().uuidString
    XCTAssertEqual(try vault.run(["export", "--all", "--to", out], password: password).status, 0, when)
    for photo in expected.photos {
      XCTAssertEqual(
        sha256(try fileBytes(vault.workingDirectory + "/" + out + "/" + photo.name)), photo.sha256,
        "\(when): \(photo.name)")
    }
    XCTAssertEqual(
      try vault.run(["export", "--all", "--thumbs", "--to", out + "-thumbs"], password: password).status, 0,
      when)
  }

  func testTheVersion1VaultStillOpensAndExportsBitForBit() throws {
    let (vault, expected) = try copy("vault-v1")
    XCTAssertEqual(expected.format, 1)
    XCTAssertEqual(try vault.run(["list"], password: "compatibility v2").status, 3)
    try assertOpensAsExpected(vault, expected, "format 1")
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: try vault.spaceFolder() + "/index"),
      "reading does not upgrade")
  }

  func testTheFirstWriteUpgradesTheVersion1VaultToFormat2() throws {
    let (vault, expected) = try copy("vault-v1")
    // A write that changes nothing: selecting what is selected.
    let selected = expected.photos.indices.filter { expected.photos[$0].selected }.map { "\($0 + 1)" }
    XCTAssertEqual(try vault.run(["select"] + selected, password: expected.password).status, 0)
    let space = try vault.spaceFolder()
    XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/index"), "the index was replaced")
    XCTAssertTrue(isDirectory(space + "/Journal"))
    try assertOpensAsExpected(vault, expected, "after the upgrade")
  }

  func testTheVersion2VaultStillOpensAndExportsBitForBit() throws {
    let (vault, expected) = try copy("vault-v2")
    XCTAssertEqual(expected.format, 2)
    XCTAssertEqual(try vault.run(["list"], password: "compatibility v1").status, 3)
    try assertOpensAsExpected(vault, expected, "format 2")
    // A write on it still works, and the deleted photo stays deleted.
    XCTAssertEqual(
      try vault.run(["add", fixturesPath + "/photo.jpg"], password: expected.password).status, 0)
    try assertOpensAsExpected(vault, expected, "format 2, after a write")
  }
}

private func isDirectory(_ path: String) -> Bool {
  var directory: ObjCBool = false
  return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
}
