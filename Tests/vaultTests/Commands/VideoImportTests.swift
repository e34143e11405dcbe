import Foundation
import VaultCore
import VaultTestSupport
import XCTest

/// Videos through the built binary, as a phone's camera roll holds them: an H.264 MP4 and
/// an HEVC MOV turned by its display matrix, added beside a photo, listed with their kind,
/// duration and codec, thumbnails upright and not black, exported bit for bit; a truncated
/// and a hostile one are named on one line each and leave the vault as it was.
final class VideoImportTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var videos = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    videos = folder + "/camera"
    try FileManager.default.createDirectory(atPath: videos, withIntermediateDirectories: true)
  }

  func testVideosImportListAndExportBitForBitWithUprightThumbnails() throws {
    try TestVideos.h264MP4(videos + "/clip.mp4")
    try TestVideos.markedMOV(videos + "/IMG_0001.MOV", appleDate: "2023-02-03T04:05:06+0100")
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: videos + "/photo.jpg")
    let run = try vault.run(["add", videos])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(
      run.stdout.contains("added 3 items (1 photo, 2 videos), skipped 0 duplicates, failed 0"), run.stdout)

    let entries = Dictionary(uniqueKeysWithValues: try vault.listJSON().map { ($0["name"] as! String, $0) })
    let clip = try XCTUnwrap(entries["clip.mp4"])
    XCTAssertEqual(clip["kind"] as? String, "video")
    XCTAssertEqual(clip["format"] as? String, "mp4")
    XCTAssertEqual(clip["codec"] as? String, "h264")
    XCTAssertEqual(clip["duration"] as? Double, 2)
    XCTAssertEqual([clip["width"] as? Int, clip["height"] as? Int], [320, 240])
    let movie = try XCTUnwrap(entries["IMG_0001.MOV"])
    XCTAssertEqual(movie["kind"] as? String, "video")
    XCTAssertEqual(movie["format"] as? String, "mov")
    XCTAssertEqual(movie["codec"] as? String, "hevc")
    XCTAssertEqual(movie["duration"] as? Double, 2)
    XCTAssertEqual([movie["width"] as? Int, movie["height"] as? Int], [240, 320])
    XCTAssertEqual(movie["taken"] as? String, "2023-02-03T04:05:06+01:00")
    let photo = try XCTUnwrap(entries["photo.jpg"])
    XCTAssertEqual(photo["kind"] as? String, "photo")
    XCTAssertNil(photo["duration"])
    XCTAssertNil(photo["codec"])
    // The table shows a video's duration after its size.
    XCTAssertTrue(try vault.run(["list"]).stdout.contains("240×320 0:02"))
    // verify counts the items as add did: a video is not called a photo.
    let verify = try vault.run(["verify"])
    XCTAssertEqual(verify.status, 0, verify.stderr)
    XCTAssertTrue(verify.stdout.hasSuffix("3 items (1 photo, 2 videos) checked: all intact\n"), verify.stdout)

    let exported = try vault.run(["export", "--all", "--to", "out"])
    XCTAssertEqual(exported.status, 0, exported.stderr)
    for name in ["clip.mp4", "IMG_0001.MOV", "photo.jpg"] {
      XCTAssertEqual(try fileBytes(folder + "/out/" + name), try fileBytes(videos + "/" + name), name)
    }
    let thumbs = try vault.run(["export", "--all", "--thumbs", "--to", "thumbs"])
    XCTAssertEqual(thumbs.status, 0, thumbs.stderr)
    let thumbnail = try RGBImage.decodeJPEG(try fileBytes(folder + "/thumbs/IMG_0001.jpg"), name: "thumbnail")
    // Portrait, turned 90° counterclockwise as the display matrix says: the red box stored
    // top left shows bottom left; and not the black first second.
    XCTAssertEqual([thumbnail.width, thumbnail.height], [240, 320])
    XCTAssertEqual(pixel(thumbnail, x: 10, y: 310).map { $0 > 150 }, [true, false, false])
    XCTAssertEqual(pixel(thumbnail, x: 10, y: 10).map { $0 > 150 }, [false, false, true])
  }

  /// Widths that are not a multiple of 8: libswscale wrote up to 24 bytes past the
  /// thumbnail's pixels, and `add` died with `malloc(): invalid size` (a new user's 300×300
  /// clip; fails before `VideoPicture.scalerOverrun`).
  func testVideosOfAnyWidthImportAndExportBitForBit() throws {
    for (width, height) in [(300, 300), (200, 200), (296, 400), (302, 400), (150, 200)] {
      try TestVideos.sizedMP4(videos + "/\(width)x\(height).mp4", width: width, height: height)
    }
    let run = try vault.run(["add", videos])
    XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
    XCTAssertTrue(run.stdout.contains("added 5 videos, skipped 0 duplicates, failed 0"), run.stdout)
    let sizes = Set(try vault.listJSON().map { "\($0["width"] as? Int ?? 0)x\($0["height"] as? Int ?? 0)" })
    XCTAssertEqual(sizes, ["300x300", "200x200", "296x400", "302x400", "150x200"])
    let names = try FileManager.default.contentsOfDirectory(atPath: videos)
    try vault.assertExportsBitForBit(names, from: videos, uprightThumbnails: [])
  }

  func testDamagedAndHostileVideosAreNamedAndLeaveTheVaultAsItWas() throws {
    try TestVideos.h264MP4(folder + "/good.mp4")
    try TestVideos.truncated(folder + "/good.mp4", to: videos + "/cut.mp4")
    try TestVideos.claimingHugePictures(folder + "/good.mp4", to: videos + "/huge.mp4")
    let before = try snapshot(folder + "/vault")
    let run = try vault.run(["add", videos])
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(run.stdout.contains("added 0 items, skipped 0 duplicates, failed 2"), run.stdout)
    XCTAssertEqual(
      run.stderr.split(separator: "\n").filter { $0.hasPrefix("error: '") }.sorted(),
      [
        "error: '\(videos)/cut.mp4': cannot read video: its container cannot be read (invalid data found when processing input)",
        "error: '\(videos)/huge.mp4': image of 65535×65535 pixels is over the limit of 200 megapixels",
      ])
    XCTAssertEqual(try snapshot(folder + "/vault"), before)
    XCTAssertEqual(try vault.listJSON().count, 0)
  }

  /// A 20-second video cut at 35% of its bytes (as a partly copied phone video): FFmpeg
  /// decodes its first 6.8 s, but the keyframe at or after 10% is at 10 s, past the cut, and
  /// it was refused ("no picture of it can be decoded"). It is kept bit for bit, with a
  /// warning naming what is missing; its duration is what the file holds.
  func testAVideoCutShortIsKeptWithAWarningAndTheDurationItHolds() throws {
    try TestVideos.indexFirstMP4(folder + "/whole.mp4", seconds: 20)
    try TestVideos.cut(folder + "/whole.mp4", to: videos + "/cut.mp4", percent: 35)
    let run = try vault.run(["add", videos + "/cut.mp4"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(
      run.stdout.contains("added 1 video, skipped 0 duplicates, failed 0, 1 with warnings"), run.stdout)
    XCTAssertTrue(
      run.stderr.contains(
        "warning: '\(videos)/cut.mp4': the file is cut short: only 0:07 of 0:20 decodes; kept whole, its thumbnail made from what decodes"
      ),
      run.stderr)
    let listed = try XCTUnwrap(try vault.listJSON().first)
    let duration = try XCTUnwrap(listed["duration"] as? Double)
    XCTAssertTrue((6.0...7.5).contains(duration), "\(duration) s: what the file holds, not 20")
    XCTAssertEqual([listed["width"] as? Int, listed["height"] as? Int], [320, 240])
    try vault.assertExportsBitForBit(["cut.mp4"], from: videos, uprightThumbnails: [])
  }

  /// A phone's video: its container's `creation_time` made FFmpeg ask glibc for the time
  /// zone, which opened /etc/localtime inside the sandbox, and the helper was killed
  /// ("the decoder made a forbidden system call") — every dated MP4 was refused.
  func testAVideoWithItsContainersCreationTimeImportsDatedByIt() throws {
    try TestVideos.datedMP4(videos + "/dated.mp4", creationTime: "2025-07-04T12:00:00Z")
    let run = try vault.run(["add", videos + "/dated.mp4"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let listed = try XCTUnwrap(try vault.listJSON().first)
    XCTAssertEqual(listed["kind"] as? String, "video")
    XCTAssertTrue((listed["taken"] as? String)?.hasPrefix("2025-07-04T12:00:00") == true, "\(listed)")
    try vault.assertExportsBitForBit(["dated.mp4"], from: videos, uprightThumbnails: [])
  }

  /// MPEG-4 Part 2 (`ffmpeg -c:v mpeg4`) was refused ("its header gives its pictures no
  /// size"): the size is read from the stream.
  func testAnMPEG4PartTwoVideoImports() throws {
    try TestVideos.mpeg4PartTwo(videos + "/part2.mp4")
    let run = try vault.run(["add", videos + "/part2.mp4"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let listed = try XCTUnwrap(try vault.listJSON().first)
    XCTAssertEqual(listed["codec"] as? String, "mpeg4")
    XCTAssertEqual(listed["duration"] as? Double, 2)
    XCTAssertEqual([listed["width"] as? Int, listed["height"] as? Int], [320, 240])
    try vault.assertExportsBitForBit(["part2.mp4"], from: videos, uprightThumbnails: [])
  }

  /// The pixel at (x, y); black outside the picture (a size already found wrong).
  func pixel(_ image: RGBImage, x: Int, y: Int) -> [UInt8] {
    guard x < image.width, y < image.height else { return [0, 0, 0] }
    let offset = (y * image.width + x) * 3
    return Array(image.pixels[offset..<offset + 3])
  }
}
