import Foundation
import VaultTestSupport
import XCTest

/// `d`, `e` and `a` in the viewer's grid act on the selected photos (else the one under the
/// cursor), and a deletion names every photo it would delete before it asks.
extension ViewerTests {
  func testDInTheGridNamesTheSelectedPhotosThenDeletesThem() throws {
    let grid = try viewer("--mode symbols")
    try grid.wait(for: "Enter: open")
    try grid.send("Right")
    try grid.type(" ")
    try grid.send("Right", "Right")
    try grid.type(" ")
    try grid.wait(for: "2 selected")
    try grid.type("d")
    var screen = try grid.wait(for: "Move the 2 photos listed to Recently Deleted? [y/N]")
    XCTAssertTrue(screen.contains("Move these 2 photos to Recently Deleted?"), screen)
    XCTAssertTrue(screen.contains(" 2 photo-2.jpg\n") && screen.contains(" 4 photo-4.jpg\n"), screen)
    XCTAssertFalse(screen.contains("photo-3.jpg"), "only the selected photos are named:\n\(screen)")
    try grid.type("n")
    try grid.wait(for: "nothing deleted")
    XCTAssertEqual(try listed().count, 6)
    try grid.type("d")
    try grid.wait(for: "Move the 2 photos listed to Recently Deleted?")
    try grid.sendOnItsOwn("y")
    screen = try grid.wait(for: "— moved 2 photos to Recently Deleted; 4 left")
    try grid.type("q")
    try grid.waitUntilFinished()
    XCTAssertEqual(
      try listed().compactMap { $0["name"] as? String },
      ["photo-1.jpg", "photo-3.jpg", "photo-5.jpg", "photo-6.jpg"])
    XCTAssertEqual(try vault.run(["verify"]).status, 0)
  }

  func testDInTheGridWithoutASelectionAsksForThePhotoUnderTheCursor() throws {
    let grid = try viewer("--mode symbols")
    try grid.wait(for: "Enter: open")
    try grid.send("Right", "Right")
    try grid.wait(for: "3 / 6  0 selected")
    try grid.type("d")
    try grid.wait(for: "Move 'photo-3.jpg' to Recently Deleted? [y/N]")
    try grid.sendOnItsOwn("y")
    try grid.wait(for: "— moved 'photo-3.jpg' to Recently Deleted; 5 left")
    try grid.type("q")
    try grid.waitUntilFinished()
    XCTAssertEqual(try listed().count, 5)
  }

  func testEInTheGridExportsTheSelectedPhotos() throws {
    let grid = try viewer("--mode symbols --sort imported", width: 250)
    try grid.wait(for: "Enter: open")
    try grid.type(" ")
    try grid.send("Right")
    try grid.type(" ")
    try grid.wait(for: "2 selected")
    try grid.type("e")
    try grid.wait(for: "export 2 selected photos to folder")
    try grid.type(folder + "/out")
    try grid.sendOnItsOwn("Enter")
    try grid.wait(for: "exported 2 photos to " + folder + "/out")
    try grid.type("q")
    try grid.waitUntilFinished()
    for name in ["photo-1.jpg", "photo-2.jpg"] {
      XCTAssertEqual(try fileBytes(folder + "/out/" + name), try fileBytes(folder + "/" + name))
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/out").count, 2)
  }

  /// A selected photo that is not the one under the cursor is named with its number: two
  /// photos may share a name, and the selection may be days old.
  func testOneSelectedPhotoIsNamedByItsNumber() throws {
    XCTAssertEqual(try vault.run(["select", "2"]).status, 0)
    let grid = try viewer("--mode symbols")
    try grid.wait(for: "1 / 6  1 selected")
    try grid.type("e")
    try grid.wait(for: "export the selected photo 2 'photo-2.jpg' to folder")
    try grid.send("Escape")
    // Typed only once the question is gone: an Escape with a letter right after it is Alt
    // with that letter.
    try grid.wait(until: "the export question gone") { !$0.contains("export the selected") }
    try grid.type("d")
    try grid.wait(for: "Move the selected photo 2 'photo-2.jpg' to Recently Deleted? [y/N]")
    try grid.type("n")
    try grid.wait(for: "nothing deleted")
    try grid.type("q")
    try grid.waitUntilFinished()
    XCTAssertEqual(try listed().count, 6)
  }
}
