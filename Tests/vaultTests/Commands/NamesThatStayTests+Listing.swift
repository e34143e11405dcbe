import Foundation
import VaultTestSupport
import XCTest

/// What `list` prints is the name of the file on disk: `list`, `list --json`, `export` and
/// the mount's Photos/ name every file alike, and delete, `trash` and its restore name it
/// so too (a tryout of issue 35 listed two `photo2.jpg` that exported as `photo2.jpg` and
/// `photo2 (1).jpg`).
extension NamesThatStayTests {
  func testListExportAndTheMountNameEveryFileAlike() throws {
    // The tryout: a photo deleted, another of its name added, the first restored.
    try addJolla("photo.jpg", in: "a")
    try succeed(["delete", "1", "--yes"])
    let secondID = try addJolla("gray.jpg", in: "b")
    try succeed(["trash", "restore", "1"])
    // A Live Photo, then a photo and a video of its files' names.
    let camera = folder + "/c"
    let later = folder + "/d"
    for path in [camera, later] {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    try TestLivePhotos.still(camera + "/A.JPG", color: "red", identifier: "AAAA-1111")
    try TestLivePhotos.motion(camera + "/B.MOV", identifier: "AAAA-1111")
    try succeed(["add", camera])
    try TestLivePhotos.still(later + "/A.JPG", color: "blue")
    try TestLivePhotos.motion(later + "/B.MOV", identifier: "BBBB-2222")
    try succeed(["add", later])

    let listed = try vault.listJSON()
    var names: [String] = []
    var imported: [String: String] = [:]
    for item in listed {
      for file in [item, item["motion"] as? [String: Any]].compactMap({ $0 }) {
        let name = try XCTUnwrap(file["name"] as? String)
        names.append(name)
        imported[name] = file["importedName"] as? String
      }
    }
    let expected = ["jolla.jpg", "jolla (1).jpg", "A.JPG", "B.MOV", "A (1).JPG", "B (1).MOV"]
    XCTAssertEqual(names.sorted(), expected.sorted(), "list --json names every file as export and the mount")
    XCTAssertEqual(imported, ["jolla (1).jpg": "jolla.jpg", "A (1).JPG": "A.JPG", "B (1).MOV": "B.MOV"])
    XCTAssertEqual(Set(try exported().keys), Set(expected))
    XCTAssertEqual(Set(try mounted().photos.keys), Set(expected))

    let table = try vault.run(["list"])
    XCTAssertEqual(table.status, 0, table.stderr)
    for name in ["jolla.jpg", "jolla (1).jpg", "A (1).JPG", "B (1).MOV"] {
      XCTAssertTrue(table.stdout.contains(" \(name) "), "list shows \(name):\n\(table.stdout)")
    }
    XCTAssertTrue(table.stdout.contains("A.JPG "), table.stdout)

    // verify names each file so, and so does add when a file is one the space holds (a
    // second tryout: verify printed 'ok: 2 jolla.jpg' and add 'already in the space as 2
    // 'jolla.jpg'' for the photo every other command calls 'jolla (1).jpg').
    let second = try number(of: secondID)
    let verify = try vault.run(["verify"])
    XCTAssertEqual(verify.status, 0, verify.stderr)
    XCTAssertTrue(verify.stdout.contains("ok: \(second) jolla (1).jpg\n"), verify.stdout)
    XCTAssertTrue(verify.stdout.contains(" B (1).MOV\n"), verify.stdout)
    let again = try vault.run(["add", folder + "/b/jolla.jpg"])
    XCTAssertTrue(
      again.stdout.contains("already in the space as \(second) 'jolla (1).jpg'"), again.stdout + again.stderr)

    // Deleting, listing Recently Deleted and restoring name it as list did.
    let deleted = try vault.run(["delete", second, "--yes"])
    XCTAssertTrue(deleted.stdout.contains("deleted 'jolla (1).jpg'"), deleted.stdout + deleted.stderr)
    let trash = try vault.run(["trash"])
    XCTAssertTrue(trash.stdout.contains("1  jolla (1).jpg  deleted"), trash.stdout + trash.stderr)
    // Adding it again while it is there says where it is (the second tryout read only
    // "already in the space", and could not find it in list).
    let inTrash = try vault.run(["add", folder + "/b/jolla.jpg"])
    XCTAssertTrue(
      inTrash.stdout.contains(
        "already in the space as 1 'jolla (1).jpg' in Recently Deleted (id \(secondID.prefix(8))); "
          + "'vault trash restore 1' brings it back"), inTrash.stdout + inTrash.stderr)
    let restored = try vault.run(["trash", "restore", "1"])
    XCTAssertTrue(restored.stdout.contains("restored 'jolla (1).jpg'"), restored.stdout + restored.stderr)
  }
}
