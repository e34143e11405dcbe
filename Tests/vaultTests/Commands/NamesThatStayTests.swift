import Foundation
import XCTest

/// The name a photo shows in `export` and in the mount stays with it, through the built
/// binary: a later import of the same name takes the suffix whatever its date, deleting
/// one photo of a name never renames another, and a photo in Recently Deleted keeps its
/// name until it is deleted for good.
final class NamesThatStayTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var mountPoint = ""

  override func setUpWithError() throws {
    try MountTests.requireFuse()
    (vault, mountPoint) = try MountTests.vaultAndMountPoint(for: self)
    folder = (mountPoint as NSString).deletingLastPathComponent
  }

  /// Adds `fixture` as `<subfolder>/jolla.jpg`; returns its id.
  @discardableResult
  func addJolla(_ fixture: String, in subfolder: String) throws -> String {
    let source = folder + "/" + subfolder
    try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: fixturesPath + "/" + fixture, toPath: source + "/jolla.jpg")
    let before = Set(try vault.listJSON().compactMap { $0["id"] as? String })
    let added = try vault.run(["add", source])
    XCTAssertEqual(added.status, 0, added.stderr)
    return try XCTUnwrap(
      try vault.listJSON().compactMap { $0["id"] as? String }.first { !before.contains($0) })
  }

  /// The files `export --all` writes into a new folder, by name, as their contents.
  func exported() throws -> [String: [UInt8]] {
    let target = folder + "/export-\(UUID().uuidString)"
    let run = try vault.run(["export", "--all", "--to", target])
    XCTAssertEqual(run.status, 0, run.stderr)
    var files: [String: [UInt8]] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: target) {
      files[name] = try fileBytes(target + "/" + name)
    }
    return files
  }

  /// The files of the mount's `Photos/`, `Dates/2019/12/` and `Recently Deleted/`, as their
  /// contents.
  func mounted() throws -> (photos: [String: [UInt8]], december: [String: [UInt8]], trash: [String: [UInt8]])
  {
    let running = try vault.start(["mount", mountPoint])
    XCTAssertNotNil(running.waitForLine { $0.contains("mounted") }, "vault mount ended")
    func read(_ relative: String) throws -> [String: [UInt8]] {
      let path = mountPoint + "/" + relative
      let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
      return try Dictionary(uniqueKeysWithValues: names.map { ($0, try fileBytes(path + "/" + $0)) })
    }
    let files = (try read("Photos"), try read("Dates/2019/12"), try read("Recently Deleted"))
    running.send(SIGTERM)
    XCTAssertEqual(try running.finish().status, 0)
    return files
  }

  func testAnOlderPhotoOfTheSameNameTakesTheSuffixAndADeletionMovesNoOtherName() throws {
    let first = try fileBytes(fixturesPath + "/photo.jpg")
    let older = try fileBytes(fixturesPath + "/taken-no-offset.jpg")  // taken 2019-12-31
    let firstID = try addJolla("photo.jpg", in: "a")
    try addJolla("taken-no-offset.jpg", in: "b")
    // The older photo lists first (by date), yet the first import keeps the plain name.
    XCTAssertEqual(try vault.listJSON().first?["taken"] as? String, "2019-12-31T23:59:59")
    XCTAssertEqual(try exported(), ["jolla.jpg": first, "jolla (1).jpg": older])
    let mount = try mounted()
    XCTAssertEqual(mount.photos, ["jolla.jpg": first, "jolla (1).jpg": older])
    XCTAssertEqual(mount.december, ["jolla (1).jpg": older], "every folder shows a file under one name")

    // Deleting the first for good frees its name and moves no other.
    let deleted = try vault.run(["delete", try number(of: firstID), "--now", "--yes"])
    XCTAssertEqual(deleted.status, 0, deleted.stderr)
    XCTAssertEqual(try exported(), ["jolla (1).jpg": older])
    XCTAssertEqual(try mounted().photos, ["jolla (1).jpg": older])

    // A later import takes the freed name; the other keeps its own.
    let third = try fileBytes(fixturesPath + "/gray.jpg")
    try addJolla("gray.jpg", in: "c")
    XCTAssertEqual(try exported(), ["jolla.jpg": third, "jolla (1).jpg": older])
  }

  /// A photo moved to Recently Deleted holds its name: a later import of the name takes the
  /// next suffix, the mount's Recently Deleted/ shows it under its name, and a restore
  /// brings it back under it. Only a deletion for good frees the name.
  func testAPhotoInRecentlyDeletedKeepsItsNameUntilDeletedForGood() throws {
    let first = try fileBytes(fixturesPath + "/photo.jpg")
    let older = try fileBytes(fixturesPath + "/taken-no-offset.jpg")
    let third = try fileBytes(fixturesPath + "/gray.jpg")
    let firstID = try addJolla("photo.jpg", in: "a")
    try addJolla("taken-no-offset.jpg", in: "b")
    try succeed(["delete", try number(of: firstID), "--yes"])
    try addJolla("gray.jpg", in: "c")
    XCTAssertEqual(try exported(), ["jolla (1).jpg": older, "jolla (2).jpg": third])
    let mount = try mounted()
    XCTAssertEqual(mount.photos, ["jolla (1).jpg": older, "jolla (2).jpg": third])
    XCTAssertEqual(mount.trash, ["jolla.jpg": first], "Recently Deleted/ shows the name it keeps")

    try succeed(["trash", "restore", "1"])
    XCTAssertEqual(try exported(), ["jolla.jpg": first, "jolla (1).jpg": older, "jolla (2).jpg": third])

    // Emptied: the name is free for the next import.
    try succeed(["delete", try number(of: firstID), "--yes"])
    try succeed(["trash", "empty", "--yes"])
    let fourth = try fileBytes(fixturesPath + "/quad-420.jpg")
    try addJolla("quad-420.jpg", in: "d")
    XCTAssertEqual(try exported(), ["jolla.jpg": fourth, "jolla (1).jpg": older, "jolla (2).jpg": third])
  }

  /// The number `vault list` shows the photo `id` under.
  func number(of id: String) throws -> String {
    String(try XCTUnwrap(try vault.listJSON().first { $0["id"] as? String == id }?["index"] as? Int))
  }

  func succeed(_ arguments: [String]) throws {
    let run = try vault.run(arguments)
    XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
  }

  /// Export into a folder that already holds a file of a photo's name still never overwrites.
  func testExportIntoAFolderHoldingTheNameNumbersItAndOverwritesNothing() throws {
    try addJolla("photo.jpg", in: "a")
    let target = folder + "/out"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: URL(fileURLWithPath: target + "/jolla.jpg"))
    let run = try vault.run(["export", "--all", "--to", target])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(try fileBytes(target + "/jolla.jpg"), Array("mine".utf8))
    XCTAssertEqual(try fileBytes(target + "/jolla (1).jpg"), try fileBytes(fixturesPath + "/photo.jpg"))
  }
}
