import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Videos and animations played frame by frame through the browser: a video read by range
/// from its stored original, its frames in order, scaled as asked, turned, dropped when
/// asked, seeking to a keyframe before the time; GIF and WebP frames with their delays.
final class MovingPictureTests: XCTestCase {
  var folder = ""
  var space: Space!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    space = try vault.unlock(password: password("first"), access: .write)
  }

  func imported(_ path: String) throws -> (PhotoBrowser, PhotoRecord) {
    try PhotoImporter().importFiles([path], into: space) { _, _ in }
    let browser = space.makeBrowser()
    let name = URL(fileURLWithPath: path).lastPathComponent
    let record = (0..<browser.count).compactMap { browser.photo(at: $0)?.record }.first { $0.name == name }
    return (browser, try XCTUnwrap(record, name))
  }

  func testAVideoPlaysInOrderScaledAndSeeks() throws {
    try TestVideos.countingMP4(folder + "/clip.mp4", seconds: 12)
    let (browser, record) = try imported(folder + "/clip.mp4")
    let video = try XCTUnwrap(try browser.movingPicture(of: record))
    XCTAssertEqual(video.shownSize, PixelSize(width: 320, height: 240))
    XCTAssertEqual(video.durationMicroseconds, 12_000_000)
    var times: [Int64] = []
    for number in 0..<5 {
      // Every other frame dropped: it comes unscaled.
      let frame = try XCTUnwrap(
        try video.nextFrame { _ in number % 2 == 0 ? PixelSize(width: 160, height: 120) : nil })
      XCTAssertEqual(frame.image.map { [$0.width, $0.height] }, number % 2 == 0 ? [160, 120] : nil)
      times.append(frame.microseconds)
    }
    XCTAssertEqual(times, [0, 100_000, 200_000, 300_000, 400_000])
    try video.seek(toMicroseconds: 7_000_000)
    try assertFramesLeadUp(to: 7_000_000, in: video)
    var last: Int64 = 0
    while let frame = try video.nextFrame(scaledTo: { _ in nil }) { last = frame.microseconds }
    XCTAssertEqual(last, 11_900_000, "played to its last frame, then nil")
    // Back from the end: a seek that did not move would leave nothing to play.
    try video.seek(toMicroseconds: 3_000_000)
    try assertFramesLeadUp(to: 3_000_000, in: video)
  }

  /// The frames after a seek to `target`: from a keyframe at or before it, one every
  /// 100 ms (none skipped), up to the frame at `target` itself.
  func assertFramesLeadUp(to target: Int64, in video: MovingPicture, line: UInt = #line) throws {
    var times: [Int64] = []
    while times.last.map({ $0 < target }) ?? true, let frame = try video.nextFrame(scaledTo: { _ in nil }) {
      times.append(frame.microseconds)
    }
    let first = try XCTUnwrap(times.first, "no frame after the seek to \(target) µs", line: line)
    XCTAssertLessThanOrEqual(first, target, "the seek starts at a keyframe before the time", line: line)
    XCTAssertEqual(times, Array(stride(from: first, through: target, by: 100_000)), line: line)
  }

  func testAVideoIsTurnedAsItsDisplayMatrixSays() throws {
    try TestVideos.markedMOV(folder + "/IMG_0001.MOV")
    let (browser, record) = try imported(folder + "/IMG_0001.MOV")
    let video = try XCTUnwrap(try browser.movingPicture(of: record))
    XCTAssertEqual(video.shownSize, PixelSize(width: 240, height: 320))
    try video.seek(toMicroseconds: 1_500_000)
    var shown: RGBImage?
    while let frame = try video.nextFrame(scaledTo: {
      $0 >= 1_500_000 ? PixelSize(width: 120, height: 160) : nil
    }) {
      if let image = frame.image {
        shown = image
        break
      }
    }
    let image = try XCTUnwrap(shown)
    XCTAssertEqual([image.width, image.height], [120, 160])
    // The red box stored top-left shows bottom-left.
    let bottomLeft = (150 * 120 + 5) * 3
    XCTAssertTrue(
      image.pixels[bottomLeft] > 180 && image.pixels[bottomLeft + 2] < 80,
      "\(image.pixels[bottomLeft..<bottomLeft + 3])")
  }

  func testAnimatedGIFAndWebPFramesComeWithTheirDelaysAndStartOver() throws {
    try requireTool("/usr/bin/convert")
    let gif = folder + "/blink.gif"
    let make = Process()
    make.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
    make.arguments = [
      "-delay", "30", "-size", "48x32", "xc:red", "-delay", "50", "xc:blue", "-loop", "0", gif,
    ]
    try make.run()
    make.waitUntilExit()
    try TestVideos.run(["-i", gif, "-c:v", "libwebp_anim", "-loop", "0", folder + "/blink.webp"])
    for path in [gif, folder + "/blink.webp"] {
      let (browser, record) = try imported(path)
      let animation = try XCTUnwrap(try browser.movingPicture(of: record), path)
      XCTAssertNil(animation.durationMicroseconds)
      var frames: [(Int64, [UInt8])] = []
      for _ in 0..<2 {
        let frame = try XCTUnwrap(try animation.nextFrame { _ in PixelSize(width: 24, height: 16) })
        frames.append((frame.microseconds, Array(try XCTUnwrap(frame.image).pixels[0..<3])))
      }
      XCTAssertEqual(frames.map(\.0), [0, 300_000], path)
      XCTAssertTrue(frames[0].1[0] > 200 && frames[0].1[2] < 60, "\(path): red first, \(frames[0].1)")
      XCTAssertTrue(frames[1].1[2] > 200 && frames[1].1[0] < 60, "\(path): blue second, \(frames[1].1)")
      // After the last frame's whole delay (a viewer that started over at once hid the
      // last frame), the first again, its time going on. FFmpeg's WebP muxer gives the last
      // frame the delay of the one before it (300 ms).
      let again = try XCTUnwrap(try animation.nextFrame { _ in PixelSize(width: 24, height: 16) }, path)
      let loop: Int64 = path.hasSuffix(".gif") ? 800_000 : 600_000
      XCTAssertEqual(again.microseconds, loop, "\(path): the first frame again after the last's delay")
      XCTAssertTrue(try XCTUnwrap(again.image).pixels[0] > 200, "\(path): red again")
      try animation.seek(toMicroseconds: 0)
      XCTAssertEqual(try animation.nextFrame { _ in nil }?.microseconds, 0, "\(path) starts over")
    }
  }

  /// A GIF's frames drawn over what came before, and taken off as their disposal says: a
  /// blue corner to be cleared ("background") is gone when the next frame shows.
  func testGIFFramesAreComposedAndDisposed() throws {
    try requireTool("/usr/bin/convert")
    let gif = folder + "/disposal.gif"
    let make = Process()
    make.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
    make.arguments = [
      "-delay", "10", "-dispose", "None", "-size", "48x32", "xc:red", "-dispose", "Background", "-page",
      "+0+0",
      "-size", "16x16", "xc:blue", "-dispose", "None", "-page", "+32+16", "-size", "8x8", "xc:lime", "-loop",
      "0",
      gif,
    ]
    try make.run()
    make.waitUntilExit()
    let (browser, record) = try imported(gif)
    let animation = try XCTUnwrap(try browser.movingPicture(of: record))
    var frames: [RGBImage] = []
    for _ in 0..<3 {
      frames.append(try XCTUnwrap(try animation.nextFrame { _ in PixelSize(width: 48, height: 32) }?.image))
    }
    func colour(_ frame: Int, _ x: Int, _ y: Int) -> [UInt8] {
      let offset = (y * 48 + x) * 3
      return Array(frames[frame].pixels[offset..<offset + 3])
    }
    XCTAssertEqual(colour(1, 2, 2), [0, 0, 255], "the second frame's blue corner")
    XCTAssertEqual(colour(1, 40, 5), [255, 0, 0], "over the first frame, left in place")
    XCTAssertNotEqual(colour(2, 2, 2), [0, 0, 255], "the blue corner was cleared")
    XCTAssertEqual(colour(2, 40, 5), [255, 0, 0])
    XCTAssertEqual(colour(2, 34, 18), [0, 255, 0], "the third frame's green square")
  }
}
