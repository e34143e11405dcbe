import Foundation
import XCTest

@testable import VaultCore
@testable import VaultDecoder
@testable import VaultTerminal

/// The viewer's playback clock with a made-up video (10 s, 10 frames a second): a seek while
/// paused shows the frame at its time, the frames before it dropped unscaled; a failure
/// is handed to the viewer.
final class PlaybackClockTests: XCTestCase {
  /// Frames every 100 ms; a seek goes back to the start, as to a video's only keyframe.
  final class MadeUpVideo: MovingPicture, @unchecked Sendable {
    let lock = NSLock()
    var next: Int64 = 0
    var scaled: [Int64] = []
    var failsAt: Int64?
    /// How long decoding a frame takes, in microseconds: a video that cannot keep up.
    var decoding: UInt32 = 0
    let shownSize = PixelSize(width: 40, height: 30)
    let durationMicroseconds: Int64? = 10_000_000

    func nextFrame(scaledTo size: (Int64) -> PixelSize?) throws -> MovingFrame? {
      let time = lock.withLock { next }
      if let failsAt, time >= failsAt { throw VaultError.decodeFailed(path: "clip.mp4", reason: "damaged") }
      guard time < 10_000_000 else { return nil }
      if decoding > 0 { usleep(decoding) }
      lock.withLock { next += 100_000 }
      guard let wanted = size(time) else { return MovingFrame(microseconds: time, image: nil) }
      lock.withLock { scaled.append(time) }
      return MovingFrame(
        microseconds: time,
        image: RGBImage(
          width: wanted.width, height: wanted.height,
          pixels: [UInt8](repeating: 9, count: wanted.width * wanted.height * 3)))
    }

    func seek(toMicroseconds microseconds: Int64) throws {
      lock.withLock { next = 0 }
    }
  }

  let photo = BlobID(high: 1, low: 2)

  /// Asks the playback for its frame until `condition` holds (the decoding thread hands
  /// frames over as it goes); fails after a limit only a hang reaches.
  @discardableResult
  func waitForFrame(_ playback: Playback, _ condition: (MovingFrame?, Error?) -> Bool) -> MovingFrame? {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      let (frame, failure) = playback.current()
      if condition(frame, failure) { return frame }
      usleep(1000)
    }
    XCTFail("the playback never got there")
    return nil
  }

  func testASeekWhilePausedShowsTheFrameAtItsTimeAndDropsTheOnesBefore() {
    let video = MadeUpVideo()
    let playback = Playback(
      photo: photo, open: { video }, isVideo: true, area: PixelSize(width: 20, height: 100))
    defer { playback.stop() }
    let first = waitForFrame(playback) { frame, _ in frame != nil }
    XCTAssertEqual(first?.image.map { [$0.width, $0.height] }, [20, 15], "fitted in the area")
    playback.togglePause()
    XCTAssertTrue(playback.isPaused)
    let shownBefore = playback.shownMicroseconds
    playback.seek(by: 5)
    let shown = waitForFrame(playback) { frame, _ in (frame?.microseconds ?? 0) >= shownBefore + 4_950_000 }
    XCTAssertEqual(shown?.microseconds, shownBefore + 5_000_000)
    let scaledSince = video.lock.withLock { video.scaled.filter { $0 > shownBefore + 100_000 } }
    XCTAssertEqual(
      scaledSince.first, shownBefore + 5_000_000, "the frames before the seek's time were not scaled")
    XCTAssertGreaterThanOrEqual(playback.dropped, 40)
    XCTAssertTrue(playback.isPaused, "a seek leaves it paused")
  }

  func testAFailureIsHandedToTheViewer() {
    let video = MadeUpVideo()
    video.failsAt = 300_000
    let playback = Playback(
      photo: photo, open: { video }, isVideo: true, area: PixelSize(width: 40, height: 30))
    defer { playback.stop() }
    waitForFrame(playback) { _, failure in failure != nil }
    let failure = playback.current().failure.map { "\($0)" } ?? ""
    XCTAssertTrue(failure.contains("clip.mp4") && failure.contains("damaged"), failure)
  }

  /// Decoding three times slower than the video plays: every frame after the first is late,
  /// and some still show (late) rather than none at all.
  func testAVideoThatCannotKeepUpStillShowsFrames() {
    let video = MadeUpVideo()
    video.decoding = 300_000
    let playback = Playback(
      photo: photo, open: { video }, isVideo: true, area: PixelSize(width: 40, height: 30))
    defer { playback.stop() }
    let shown = waitForFrame(playback) { frame, _ in (frame?.microseconds ?? 0) >= 200_000 }
    XCTAssertNotNil(shown?.image)
  }
  /// Four frames of 20 ms over and over, their times going on, as the helper plays a GIF.
  final class MadeUpAnimation: MovingPicture, @unchecked Sendable {
    let lock = NSLock()
    var next: Int64 = 0
    let shownSize = PixelSize(width: 4, height: 4)
    let durationMicroseconds: Int64? = nil

    func nextFrame(scaledTo size: (Int64) -> PixelSize?) throws -> MovingFrame? {
      let time = lock.withLock {
        defer { next += 20_000 }
        return next
      }
      guard let wanted = size(time) else { return MovingFrame(microseconds: time, image: nil) }
      return MovingFrame(
        microseconds: time,
        image: RGBImage(
          width: wanted.width, height: wanted.height,
          pixels: [UInt8](repeating: 9, count: wanted.width * wanted.height * 3)))
    }

    func seek(toMicroseconds microseconds: Int64) throws {
      lock.withLock { next = 0 }
    }
  }

  /// A viewer slower to draw than the animation's frames come (60 ms a frame for frames of
  /// 20 ms, as kitty drawing a large GIF): every frame still shows, in order; none is
  /// skipped or dropped, whatever the machine's speed.
  func testAnAnimationShowsEveryFrameWhenTheViewerIsSlow() {
    let animation = MadeUpAnimation()
    let playback = Playback(
      photo: photo, open: { animation }, isVideo: false, area: PixelSize(width: 4, height: 4))
    defer { playback.stop() }
    var shown: [Int64] = []
    let deadline = Date().addingTimeInterval(60)
    while shown.count < 12, Date() < deadline {
      if let time = playback.current().frame?.microseconds, time != shown.last { shown.append(time) }
      // The drawing of that frame.
      usleep(60_000)
    }
    XCTAssertEqual(shown, (0..<12).map { Int64($0) * 20_000 }, "every frame, in order")
    XCTAssertEqual(playback.dropped, 0)
  }
}
