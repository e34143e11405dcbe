import Foundation
import VaultTestSupport
import XCTest

/// One photo, one item, across machines: the same file imported on two copies apart is
/// listed once after they merge (by a union copy, rsync, unison), as the earlier import, with
/// that import's selection and the albums of both; it exports once, verifies, and a deletion
/// on one copy deletes both imports on both copies after the next merge.
extension SyncMergeTests {
  func testAPhotoImportedOnBothCopiesApartIsOneItemOnceTheyMeet() throws {
    let merges: [(String, (Machine, Machine) throws -> Void)] = [
      ("union", unionCopyBothWays), ("rsync", rsyncBothWays), ("unison", unison),
    ]
    for (name, merge) in merges {
      let (a, b, history) = try copies(in: name)
      if name == "unison" { try merge(a, b) }
      // A imports it first, files it in "Trip" and selects it; B imports it later (a
      // photo of its own too), files its import in "Later" and leaves it unselected.
      try a.add(["progressive.jpg"])
      let kept = history.id("progressive.jpg")
      try succeed(a, ["album", "new", "Trip"])
      try succeed(a, ["album", "add", "Trip", kept])
      try a.select("progressive.jpg", true)
      try b.add(["quad-422.jpg"])
      try succeed(b, ["add", fixturesPath + "/progressive.jpg"])
      let hidden = try XCTUnwrap(try b.listing().first { $0.name == "progressive.jpg" }?.id)
      try succeed(b, ["album", "new", "Later"])
      try succeed(b, ["album", "add", "Later", hidden])
      try assertNoFileWrittenByBoth(a, b, since: history)
      try merge(a, b)

      // One item on both, numbered alike, as A's import, selected, in both albums.
      for machine in [a, b] {
        let photos = try machine.runner.listJSON()
        let item = photos.filter { $0["name"] as? String == "progressive.jpg" }
        XCTAssertEqual(item.count, 1, "\(name) \(machine.name): \(photos)")
        XCTAssertEqual(item.first?["id"] as? String, kept, "\(name) \(machine.name)")
        XCTAssertEqual(item.first?["albums"] as? [String], ["Later", "Trip"], "\(name) \(machine.name)")
        let verify = try machine.run(["verify"])
        XCTAssertEqual(verify.status, 0, "\(name) \(machine.name): \(verify.stdout)")
        XCTAssertTrue(verify.stdout.contains("\(photos.count) photos checked: all intact"), verify.stdout)
      }
      XCTAssertEqual(try a.run(["list", "--json"]).stdout, try b.run(["list", "--json"]).stdout, name)
      try assertMerged(a, b, history)

      // Deleted on B (by the item's number) deletes both imports, on both copies once they meet.
      let number = try XCTUnwrap(
        try b.runner.listJSON().first { $0["id"] as? String == kept }?["index"] as? Int)
      try succeed(b, ["delete", "--now", String(number), "--yes"])
      history.deleted.insert(kept)
      try merge(a, b)
      try assertMerged(a, b, history)
      for machine in [a, b] {
        let space = try machine.spaceFolder()
        for id in [kept, hidden] {
          for blob in ["/Photo/", "/Thumb/"] {
            XCTAssertFalse(
              FileManager.default.fileExists(atPath: space + blob + id), "\(name) \(machine.name)\(blob)\(id)"
            )
          }
        }
      }
    }
  }

  /// The hidden import's file is checked too, under the item's number; when it is damaged,
  /// the hint does not send the user to `delete`, which would take the intact import too.
  func testADamagedImportOfAPhotoImportedOnBothCopiesIsNamedWithASafeHint() throws {
    let (a, b, history) = try copies()
    try a.add(["progressive.jpg"])
    let kept = history.id("progressive.jpg")
    try succeed(b, ["add", fixturesPath + "/progressive.jpg"])
    let hidden = try XCTUnwrap(try b.listing().first { $0.name == "progressive.jpg" }?.id)
    try rsyncBothWays(a, b)
    let path = try a.spaceFolder() + "/Photo/" + hidden
    var bytes = try fileBytes(path)
    bytes[bytes.count / 2] ^= 0x55
    try writeBytes(bytes, to: path)
    let number = try XCTUnwrap(
      try a.runner.listJSON().first { $0["id"] as? String == kept }?["index"] as? Int)
    let verify = try a.run(["verify", "--quiet"])
    XCTAssertNotEqual(verify.status, 0)
    XCTAssertTrue(
      verify.stdout.contains("damaged original: \(number) progressive.jpg (Photo/\(hidden))"), verify.stdout)
    XCTAssertTrue(verify.stderr.contains("imported on another copy too (id \(kept))"), verify.stderr)
    XCTAssertFalse(verify.stderr.contains("vault delete \(hidden)"), verify.stderr)
    // The intact import is the one shown and exported.
    let target = folder + "/export"
    try succeed(a, ["export", String(number), "--to", target])
    XCTAssertEqual(
      sha256(try fileBytes(target + "/progressive.jpg")),
      sha256(try fileBytes(fixturesPath + "/progressive.jpg")))
  }

  /// Live Photos imported on both copies: a pair by Apple's identifier, and a still that one
  /// copy imported alone and the other with its MOV, paired by name stem (an identifier B
  /// gave its own halves). Each is one live item once merged, and deleting one deletes
  /// every import of both halves.
  func testLivePhotosImportedOnBothCopiesApartAreOneItemEach() throws {
    let (a, b, history) = try copies()
    let camera = (a: folder + "/camera-a", b: folder + "/camera-b")
    for path in [camera.a, camera.b] {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    try TestLivePhotos.still(camera.a + "/A.JPG", color: "red", identifier: "AAAA-1111")
    try TestLivePhotos.motion(camera.a + "/B.MOV", identifier: "AAAA-1111")
    try TestLivePhotos.still(camera.a + "/IMG_0002.JPG", color: "blue")
    try TestLivePhotos.motion(camera.b + "/IMG_0002.mov")
    for name in ["A.JPG", "B.MOV", "IMG_0002.JPG"] {
      try FileManager.default.copyItem(atPath: camera.a + "/" + name, toPath: camera.b + "/" + name)
    }
    // A's still IMG_0002.JPG comes alone; B's with its MOV.
    try FileManager.default.moveItem(atPath: camera.a + "/IMG_0002.JPG", toPath: folder + "/IMG_0002.JPG")
    try succeed(a, ["add", camera.a, folder + "/IMG_0002.JPG"])
    try succeed(b, ["add", camera.b])
    try rsyncBothWays(a, b)
    let listing = try a.run(["list", "--json"]).stdout
    XCTAssertEqual(try b.run(["list", "--json"]).stdout, listing)
    let photos = try VaultRunner.jsonObjects(listing)
    XCTAssertEqual(photos.count, history.basePhotos.count + 2, listing)
    let byName = Dictionary(photos.map { ($0["name"] as? String ?? "", $0) }) { first, _ in first }
    for (still, motion) in [("A.JPG", "B.MOV"), ("IMG_0002.JPG", "IMG_0002.mov")] {
      XCTAssertEqual(byName[still]?["kind"] as? String, "live", still)
      XCTAssertEqual((byName[still]?["motion"] as? [String: Any])?["name"] as? String, motion, still)
    }
    for machine in [a, b] {
      let verify = try machine.run(["verify", "--quiet"])
      XCTAssertEqual(verify.status, 0, "\(machine.name): \(verify.stdout)")
      let target = folder + "/export-" + machine.name
      try succeed(machine, ["export", "--all", "--to", target])
      XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target).count, photos.count + 2)
    }
    // Deleting the IMG_0002 item on A takes A's still and B's still and MOV, on both.
    let before = try Set(FileManager.default.contentsOfDirectory(atPath: a.spaceFolder() + "/Photo"))
    let number = try XCTUnwrap(byName["IMG_0002.JPG"]?["index"] as? Int)
    try succeed(a, ["delete", "--now", String(number), "--yes"])
    try rsyncBothWays(a, b)
    for machine in [a, b] {
      try machine.writeNothing()
      let after = try Set(FileManager.default.contentsOfDirectory(atPath: machine.spaceFolder() + "/Photo"))
      XCTAssertEqual(before.subtracting(after).count, 3, machine.name)
      XCTAssertEqual(try machine.runner.listJSON().count, photos.count - 1, machine.name)
    }
  }

  func unionCopyBothWays(_ a: Machine, _ b: Machine) throws {
    try sync([Self.rsync, "-a", "--ignore-existing", a.path + "/", b.path])
    try sync([Self.rsync, "-a", "--ignore-existing", b.path + "/", a.path])
  }

  func succeed(_ machine: Machine, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line)
    throws
  {
    let run = try machine.run(arguments)
    XCTAssertEqual(run.status, 0, "\(machine.name) \(arguments): \(run.stderr)", file: file, line: line)
  }
}
