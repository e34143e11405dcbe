import Foundation
import VaultTestSupport
import XCTest

/// Names that stay, across machines: two copies that each import a different `jolla.jpg`
/// apart show, once merged as a union of their files, the same names on both: the earlier
/// import keeps `jolla.jpg`, the other shows the first name left free; and a deletion on one copy
/// then moves no name on either.
extension SyncMergeTests {
  func testTwoCopiesThatEachImportedOneNameApartAgreeOnTheNamesOnceTheyMeet() throws {
    let (a, b, _) = try copies()
    try addJolla("progressive.jpg", on: a)
    let id = try XCTUnwrap(
      try a.runner.listJSON().first { $0["name"] as? String == "jolla.jpg" }?["id"] as? String)
    try addJolla("quad-444.jpg", on: b)
    try addJolla("quad-422.jpg", on: b)  // jolla (1).jpg on B alone
    XCTAssertEqual(try exportedNames(a)["jolla.jpg"], "progressive.jpg")
    XCTAssertEqual(try exportedNames(b)["jolla (1).jpg"], "quad-422.jpg")
    try unionCopyBothWays(a, b)

    let expected = [
      "jolla.jpg": "progressive.jpg", "jolla (1).jpg": "quad-422.jpg", "jolla (2).jpg": "quad-444.jpg",
    ]
    for machine in [a, b] {
      let names = try exportedNames(machine).filter { $0.key.hasPrefix("jolla") }
      XCTAssertEqual(names, expected, machine.name)
    }

    // Deleting A's jolla.jpg on B, then merging again, moves no other name on either copy.
    let first = try XCTUnwrap(
      try b.runner.listJSON().first { ($0["id"] as? String) == id }?["index"] as? Int)
    try succeed(b, ["delete", String(first), "--yes"])
    try unionCopyBothWays(a, b)
    for machine in [a, b] {
      let names = try exportedNames(machine).filter { $0.key.hasPrefix("jolla") }
      XCTAssertEqual(names, ["jolla (1).jpg": "quad-422.jpg", "jolla (2).jpg": "quad-444.jpg"], machine.name)
    }
  }

  /// Adds the fixture `fixture` to `machine` as `jolla.jpg`.
  private func addJolla(_ fixture: String, on machine: Machine) throws {
    let source = folder + "/\(machine.name)-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: fixturesPath + "/" + fixture, toPath: source + "/jolla.jpg")
    try succeed(machine, ["add", source])
  }

  /// The names `export --all` gives, each with the fixture whose bytes it holds.
  private func exportedNames(_ machine: Machine) throws -> [String: String] {
    let target = folder + "/export-\(machine.name)-\(UUID().uuidString)"
    try succeed(machine, ["export", "--all", "--to", target])
    var fixtures: [[UInt8]: String] = [:]
    for name in ["progressive.jpg", "quad-444.jpg", "quad-422.jpg"] {
      fixtures[try fileBytes(fixturesPath + "/" + name)] = name
    }
    var names: [String: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: target) {
      names[name] = fixtures[try fileBytes(target + "/" + name)] ?? "?"
    }
    return names
  }
}
