import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Names from records and albums become file and folder names (export, export --by-album,
/// the mount): through the built binary, a name that hides a `/` in a grapheme stays one
/// component inside the target, and names of 250 to 255 bytes still export once " (1)" is
/// added (issue 31, items 3 and 4).
final class PathNameTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  /// `../` with U+0301 on its `/`: three Characters (".", ".", "/́") and an "x", none of
  /// them "/", yet its bytes are `../` followed by the mark.
  let escaping = "../\u{301}x"

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  /// Puts the listed photos in albums named `names`, as a writer without vault's checks
  /// would (a synced copy's, holding the password).
  func forgeAlbums(_ names: [String]) throws {
    let ids = try vault.listJSON().compactMap { ($0["id"] as? String).flatMap(BlobID.init(hex:)) }
    XCTAssertEqual(ids.count, 2)
    let space = try Vault.open(at: vault.vault).unlock(
      password: try Password(utf8: Array("correct horse".utf8)), access: .write)
    for name in names { try space.addToAlbum(named: name, photos: ids, creating: true) }
  }

  func testAnAlbumNameHidingASlashIsRefusedAndAForgedOneExportsInsideTheTarget() throws {
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png", fixturesPath + "/photo.jpg"]).status, 0)
    let refused = try vault.run(["album", "new", escaping])
    XCTAssertEqual(refused.status, 64, refused.stderr)
    XCTAssertTrue(refused.stderr.contains("it holds a '/'"), refused.stderr)
    XCTAssertEqual(try vault.run(["album", "new", "..\u{301}"]).status, 64)

    try forgeAlbums([escaping, "..\u{301}", "Trip"])
    let target = folder + "/exports/out"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    let export = try vault.run(["export", "--all", "--by-album", "--to", target, "-q"])
    XCTAssertEqual(export.status, 0, export.stderr)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder + "/exports"), ["out"],
      "export wrote beside its target")
    let folders = try FileManager.default.contentsOfDirectory(atPath: target).sorted()
    XCTAssertEqual(folders, [".._\u{301}x", "Trip", "album"].sorted())
    for name in folders {
      XCTAssertEqual(
        try FileManager.default.contentsOfDirectory(atPath: target + "/" + name).sorted(),
        ["gray.png", "photo.jpg"], name)
      XCTAssertEqual(
        try fileBytes(target + "/" + name + "/photo.jpg"), try fileBytes(fixturesPath + "/photo.jpg"), name)
    }
  }

  func testTheMountListsEveryAlbumWhateverItsName() throws {
    try MountTests.requireFuse()
    let mountPoint = folder + "/mnt"
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    addTeardownBlock { [mountPoint] in
      if MountTests.isMounted(mountPoint) {
        _ = try? MountTests.runTool("/usr/bin/fusermount3", ["-uz", mountPoint])
      }
    }
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png", fixturesPath + "/photo.jpg"]).status, 0)
    try forgeAlbums([escaping, "Trip"])
    let mount = try vault.start(["mount", mountPoint])
    XCTAssertNotNil(mount.waitForLine { $0.contains("mounted") }, "vault mount did not start")
    let albums = try FileManager.default.contentsOfDirectory(atPath: mountPoint + "/Albums").sorted()
    XCTAssertEqual(albums, [".._\u{301}x", "Trip"].sorted())
    for album in albums {
      XCTAssertEqual(
        try fileBytes(mountPoint + "/Albums/" + album + "/gray.png"),
        try fileBytes(fixturesPath + "/gray.png"))
    }
    mount.send(SIGINT)
    XCTAssertEqual(try mount.finish().status, 0)
  }

  /// A file name of exactly `bytes` bytes ending in ".jpg": a stem of `width`-byte scalars,
  /// after as many "a" as make up the rest.
  static func longName(bytes: Int, width: Int) -> String {
    let scalar = ["a", "é", "€", "📷"][width - 1]
    let stemBytes = bytes - 4
    return String(repeating: "a", count: stemBytes % width)
      + String(repeating: scalar, count: stemBytes / width)
      + ".jpg"
  }

  /// A file found in a folder whose name is not UTF-8 (a card formatted elsewhere, an old
  /// archive): it was passed over in silence; it is named as a failed item, its invalid
  /// bytes escaped, and the folder's other photos are imported.
  func testAFileWhoseNameIsNotUTF8IsNamedAsAFailure() throws {
    let card = folder + "/card"
    try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: false)
    let photo = try fileBytes(fixturesPath + "/photo.jpg")
    try Data(photo).write(to: URL(fileURLWithPath: card + "/good.jpg"))
    let badName = Array((card + "/bad").utf8) + [0xFF, 0xC3] + Array(".jpg".utf8) + [0]
    let descriptor = badName.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
    }
    XCTAssertGreaterThanOrEqual(descriptor, 0)
    XCTAssertEqual(photo.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }, photo.count)
    close(descriptor)
    let added = try vault.run(["add", card])
    XCTAssertEqual(added.status, 1, added.stderr)
    XCTAssertTrue(added.stdout.contains("added 1 photo, skipped 0 duplicates, failed 1"), added.stdout)
    XCTAssertTrue(
      added.stderr.contains("'\(card)/bad\\xff\\xc3.jpg': its name is not valid UTF-8"), added.stderr)
    XCTAssertEqual(try vault.listJSON().map { $0["name"] as? String }, ["good.jpg"])
  }

  func testNamesOf250To255BytesExportTwiceBitForBit() throws {
    let fixtures = [
      "orientation-1.jpg", "orientation-2.jpg", "orientation-3.jpg", "orientation-4.jpg", "orientation-5.jpg",
      "orientation-6.jpg", "orientation-7.jpg", "orientation-8.jpg", "quad-420.jpg", "quad-422.jpg",
      "quad-444.jpg", "quad-gray.jpg", "quad-progressive.jpg", "quad-restart.jpg", "gray.jpg", "photo.jpg",
      "gray.png", "palette.png", "rgba.png", "flat-teal.png", "interlaced.png", "rgb16.png", "taken-exif.png",
      "taken-no-offset.jpg",
    ]
    let camera = folder + "/camera"
    try FileManager.default.createDirectory(atPath: camera, withIntermediateDirectories: true)
    var sources: [String: String] = [:]
    var fixture = fixtures.makeIterator()
    for width in 1...4 {
      for bytes in 250...255 {
        let name = Self.longName(bytes: bytes, width: width)
        XCTAssertEqual(name.utf8.count, bytes)
        sources[name] = fixturesPath + "/" + fixture.next()!
        try FileManager.default.copyItem(atPath: sources[name]!, toPath: camera + "/" + name)
      }
    }
    let added = try vault.run(["add", "-q", camera])
    XCTAssertEqual(added.status, 0, added.stderr)
    // Twice into one folder: the second time, every name needs " (1)".
    for _ in 0..<2 {
      let export = try vault.run(["export", "--all", "--to", folder + "/out", "-q"])
      XCTAssertEqual(export.status, 0, export.stderr)
      XCTAssertEqual(export.stdout, "exported 24 photos to \(folder)/out\n")
    }
    let exported = try FileManager.default.contentsOfDirectory(atPath: folder + "/out")
    XCTAssertEqual(exported.count, 48)
    // Shortened names may meet (a 252-byte and a 251-byte name of "a" both give 247 "a"
    // before " (1)"): each photo is found by its bytes, under its name and a numbered one.
    var byContent: [[UInt8]: [String]] = [:]
    for file in exported { byContent[try fileBytes(folder + "/out/" + file), default: []].append(file) }
    for (name, source) in sources {
      let copies = byContent[try fileBytes(source)] ?? []
      XCTAssertEqual(copies.count, 2, name)
      XCTAssertTrue(copies.contains(name), name)
      let numbered = try XCTUnwrap(copies.first { $0 != name }, name)
      XCTAssertNotNil(numbered.range(of: #" \(\d+\)\.jpg$"#, options: .regularExpression), numbered)
      XCTAssertLessThanOrEqual(numbered.utf8.count, 255, numbered)
      XCTAssertGreaterThanOrEqual(numbered.utf8.count, 255 - 3, numbered)
    }
  }
}
