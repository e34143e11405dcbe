import Foundation
import XCTest

/// Every summary counts items as `list` does (a Live Photo's still and MOV are one item) and
/// says photo, video or Live Photo as it is, through the built binary; a skipped duplicate
/// names the item it duplicates.
final class CountsAgreeTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var camera = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    camera = folder + "/camera"
    try FileManager.default.createDirectory(atPath: camera, withIntermediateDirectories: true)
  }

  /// A Live Photo (its still and MOV paired in this one `add`), a photo and a video.
  func addCameraRoll() throws -> VaultRun {
    try TestLivePhotos.still(camera + "/IMG_0001.JPG", color: "red", identifier: "AAAA-1111")
    try TestLivePhotos.motion(camera + "/IMG_0001.MOV", identifier: "AAAA-1111")
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: camera + "/photo.jpg")
    try TestVideos.h264MP4(camera + "/clip.mp4")
    let added = try vault.run(["add", camera])
    XCTAssertEqual(added.status, 0, added.stderr)
    return added
  }

  func testAddCountsItemsAsListDoesAndSaysHowFilesBecameItems() throws {
    let added = try addCameraRoll()
    XCTAssertEqual(try vault.listJSON().count, 3)
    XCTAssertTrue(
      added.stdout.hasSuffix(
        "added 3 items (1 photo, 1 video, 1 Live Photo) from 4 files, skipped 0 duplicates, failed 0\n"),
      added.stdout)
  }

  func testASkippedDuplicateNamesTheItemItDuplicates() throws {
    _ = try addCameraRoll()
    let listed = try vault.listJSON()
    let photo = try XCTUnwrap(listed.first { $0["name"] as? String == "photo.jpg" })
    let (number, id) = (try XCTUnwrap(photo["index"] as? Int), try XCTUnwrap(photo["id"] as? String))
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: folder + "/b.jpg")
    let again = try vault.run(["add", folder + "/b.jpg"])
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertEqual(
      again.stdout,
      "skipped '\(folder)/b.jpg': already in the space as \(number) 'photo.jpg' (id \(id.prefix(8)))\n"
        + "added 0 items, skipped 1 duplicate, failed 0\n")
  }

  func testExportSaysVideoAndLivePhotoAsTheyAre() throws {
    _ = try addCameraRoll()
    let listed = try vault.listJSON()
    func number(_ name: String) throws -> String {
      String(try XCTUnwrap(listed.first { $0["name"] as? String == name }?["index"] as? Int))
    }
    let video = try vault.run(["export", try number("clip.mp4"), "--to", folder + "/video", "--quiet"])
    XCTAssertEqual(video.stdout, "exported 1 video to \(folder)/video\n", video.stderr)
    let live = try vault.run(["export", try number("IMG_0001.JPG"), "--to", folder + "/live", "--quiet"])
    XCTAssertEqual(live.stdout, "exported 1 Live Photo as 2 files to \(folder)/live\n", live.stderr)
    let all = try vault.run(["export", "--all", "--to", folder + "/all", "--quiet"])
    XCTAssertEqual(
      all.stdout, "exported 3 items (1 photo, 1 video, 1 Live Photo) as 4 files to \(folder)/all\n",
      all.stderr)
  }

  func testDeleteRestoreAndEmptyCountItemsAsListDoes() throws {
    _ = try addCameraRoll()
    let moved = try vault.run(["delete", "--all", "--yes"])
    XCTAssertTrue(
      moved.stdout.hasSuffix(
        "moved 3 items (1 photo, 1 video, 1 Live Photo) to Recently Deleted (kept 30 days); 0 left\n"),
      moved.stdout + moved.stderr)
    let restored = try vault.run(["trash", "restore", "--all"])
    XCTAssertTrue(
      restored.stdout.hasSuffix(
        "restored 3 items (1 photo, 1 video, 1 Live Photo); 3 in the space, 0 in Recently Deleted\n"),
      restored.stdout + restored.stderr)
    let number = String(
      try XCTUnwrap(try vault.listJSON().first { $0["name"] as? String == "IMG_0001.JPG" }?["index"] as? Int))
    XCTAssertEqual(try vault.run(["delete", number, "--yes"]).status, 0)
    let emptied = try vault.run(["trash", "empty", "--yes"])
    XCTAssertTrue(
      emptied.stdout.hasSuffix("deleted 1 Live Photo for good\n"), emptied.stdout + emptied.stderr)
    let now = try vault.run(["delete", "--all", "--now", "--yes"])
    XCTAssertTrue(
      now.stdout.hasSuffix("deleted 2 items (1 photo, 1 video) for good; 0 left\n"), now.stdout + now.stderr)
  }
}
