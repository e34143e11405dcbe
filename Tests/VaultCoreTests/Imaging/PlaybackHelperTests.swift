import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Videos and animations play in the browser's playback helper, never in this process:
/// the helper runs confined, is held while a file plays and given back after; one that a
/// hostile file kills is named in that file's refusal, and the next file plays in a fresh
/// one.
final class PlaybackHelperTests: XCTestCase {
  var folder = ""
  var space: Space!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    space = try vault.unlock(password: password("first"), access: .write)
  }

  func imported(_ paths: [String]) throws -> (PhotoBrowser, [String: PhotoRecord]) {
    try PhotoImporter().importFiles(paths, into: space) { _, _ in }
    let browser = space.makeBrowser()
    let records = (0..<browser.count).compactMap { browser.photo(at: $0)?.record }
    return (browser, Dictionary(uniqueKeysWithValues: records.map { ($0.name, $0) }))
  }

  /// Every frame of `picture` to its end: times, and sizes of those not dropped.
  func playedFrames(_ picture: MovingPicture, size: PixelSize?) throws -> [(Int64, PixelSize?)] {
    var frames: [(Int64, PixelSize?)] = []
    while let frame = try picture.nextFrame(scaledTo: { _ in size }) {
      frames.append((frame.microseconds, frame.image.map { PixelSize(width: $0.width, height: $0.height) }))
    }
    return frames
  }

  func testAVideoAndAnAnimationPlayInAConfinedHelperGivenBackAfter() throws {
    try requireTool("/usr/bin/convert")
    try TestVideos.countingMP4(folder + "/clip.mp4", seconds: 3)
    let gif = folder + "/blink.gif"
    try run(
      "/usr/bin/convert",
      ["-delay", "30", "-size", "48x32", "xc:red", "-delay", "50", "xc:blue", "-loop", "0", gif])
    try TestVideos.run(["-i", gif, "-c:v", "libwebp_anim", "-loop", "0", folder + "/blink.webp"])
    let (browser, records) = try imported([folder + "/clip.mp4", gif, folder + "/blink.webp"])

    let helper = try playVideo(browser, XCTUnwrap(records["clip.mp4"]))
    XCTAssertEqual(browser.playbackDecoders.idlePIDs, [helper], "given back once it no longer plays")

    for name in ["blink.gif", "blink.webp"] {
      let animation = try XCTUnwrap(try browser.movingPicture(of: XCTUnwrap(records[name])), name)
      XCTAssertEqual((animation as? DecoderPlayback)?.helperPID, helper, name)
      XCTAssertEqual(animation.shownSize, PixelSize(width: 48, height: 32), name)
      XCTAssertNil(animation.durationMicroseconds, name)
      // Over and over, each loop's times going on from the last frame's delay (FFmpeg's
      // WebP muxer gives the last frame the delay of the one before it).
      let frames = try (0..<3).map { _ in
        try XCTUnwrap(try animation.nextFrame { _ in PixelSize(width: 24, height: 16) }, name)
      }
      XCTAssertEqual(frames.map(\.microseconds), [0, 300_000, name == "blink.gif" ? 800_000 : 600_000], name)
      XCTAssertEqual(
        frames.map { $0.image.map { PixelSize(width: $0.width, height: $0.height) } },
        Array(repeating: PixelSize(width: 24, height: 16), count: 3), name)
      try animation.seek(toMicroseconds: 0)
      XCTAssertEqual(try animation.nextFrame { _ in nil }?.microseconds, 0, "\(name) starts over")
    }
    XCTAssertEqual(browser.playbackDecoders.idlePIDs, [helper], "given back once nothing plays")
  }

  /// Plays the 3-second clip through (30 frames), then again from the start; the pid of
  /// the helper that played it, which is given back when the video is let go, on return.
  func playVideo(_ browser: PhotoBrowser, _ record: PhotoRecord) throws -> pid_t {
    let video = try XCTUnwrap(try browser.movingPicture(of: record))
    let helper = try XCTUnwrap((video as? DecoderPlayback)?.helperPID, "played by a helper")
    let status = try String(contentsOfFile: "/proc/\(helper)/status", encoding: .utf8)
    XCTAssert(status.contains("Seccomp:\t2\n") && status.contains("NoNewPrivs:\t1\n"), status)
    XCTAssertEqual(
      URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(helper)/exe"))
        .lastPathComponent, DecoderExecutable.name)
    XCTAssertEqual(video.shownSize, PixelSize(width: 320, height: 240))
    XCTAssertEqual(video.durationMicroseconds, 3_000_000)
    let frames = try playedFrames(video, size: PixelSize(width: 160, height: 120))
    XCTAssertEqual(frames.map(\.0), (0..<30).map { Int64($0) * 100_000 })
    XCTAssert(frames.allSatisfy { $0.1 == PixelSize(width: 160, height: 120) })
    XCTAssertEqual(browser.playbackDecoders.idlePIDs, [], "held while it plays")
    try video.seek(toMicroseconds: 0)
    XCTAssertEqual(try playedFrames(video, size: nil).count, 30, "played again from the start, all dropped")
    return helper
  }

  /// A frame that never comes (the helper spins, as in a crafted file): the helper is
  /// killed at the request's deadline and reaped, the refusal names the file and the
  /// limit, and the next file plays in a fresh helper.
  func testAHelperKilledWhilePlayingIsNamedOnThatFileAndTheNextPlays() throws {
    try TestVideos.countingMP4(folder + "/clip.mp4", seconds: 2)
    try TestVideos.countingMP4(folder + "/next.mp4", seconds: 1)
    let (browser, records) = try imported([folder + "/clip.mp4", folder + "/next.mp4"])
    browser.playbackDecoders = DecoderPool(size: 1, limits: DecoderLimits(deadline: 2))
    let helper = try playUntilKilled(browser, XCTUnwrap(records["clip.mp4"]))
    XCTAssertEqual(kill(helper, 0), -1, "killed and reaped")
    XCTAssertEqual(browser.playbackDecoders.idlePIDs, [], "the helper that died is not kept")
    let next = try XCTUnwrap(try browser.movingPicture(of: XCTUnwrap(records["next.mp4"])))
    XCTAssertNotEqual((next as? DecoderPlayback)?.helperPID, helper)
    XCTAssertEqual(try playedFrames(next, size: PixelSize(width: 32, height: 24)).count, 10)
  }

  /// Playing stopped while a frame is being decoded (the viewer left the page): the helper
  /// is killed at once rather than at the deadline, reaped when the video is let go, and
  /// the next file plays in a fresh one.
  func testStoppingDuringAFrameKillsItsHelperAtOnce() throws {
    try TestVideos.countingMP4(folder + "/clip.mp4", seconds: 1)
    let (browser, records) = try imported([folder + "/clip.mp4"])
    let record = try XCTUnwrap(records["clip.mp4"])
    let helper = try stopWhileDecoding(browser, record)
    XCTAssertEqual(kill(helper, 0), -1, "killed and reaped")
    XCTAssertEqual(browser.playbackDecoders.idlePIDs, [])
    let next = try XCTUnwrap(try browser.movingPicture(of: record))
    XCTAssertEqual(try playedFrames(next, size: PixelSize(width: 32, height: 24)).count, 10)
  }

  /// Starts a frame that never comes (under the default deadline of 60 s), has another
  /// thread cancel it once under way, and returns the helper's pid when the frame has ended
  /// in an error, the cancellation's and not the deadline's.
  private func stopWhileDecoding(_ browser: PhotoBrowser, _ record: PhotoRecord) throws -> pid_t {
    let cancellation = PlaybackCancellation()
    let video = try XCTUnwrap(
      try browser.movingPicture(of: record, cancellation: cancellation) as? DecoderPlayback)
    try video.fault(.spinAtNextFrame)
    // The video stays on this thread, as a player's does; the other needs only the cancellation.
    Thread.detachNewThread {
      while !cancellation.isUnderWay { sched_yield() }
      cancellation.cancel()
    }
    XCTAssertThrowsError(try video.nextFrame { _ in PixelSize(width: 16, height: 12) }) {
      XCTAssertFalse("\($0)".contains("took more than"), "ended by the deadline, not at once: \($0)")
    }
    return video.helperPID
  }

  /// Plays a frame of `record`, then makes the helper spin at the next; the helper's pid.
  private func playUntilKilled(_ browser: PhotoBrowser, _ record: PhotoRecord) throws -> pid_t {
    let video = try XCTUnwrap(try browser.movingPicture(of: record) as? DecoderPlayback)
    XCTAssertNotNil(try video.nextFrame { _ in PixelSize(width: 16, height: 12) })
    try video.fault(.spinAtNextFrame)
    XCTAssertThrowsError(try video.nextFrame { _ in PixelSize(width: 16, height: 12) }) {
      XCTAssertEqual("\($0)", "'\(record.name)': refused: decoding took more than 2 s")
    }
    return video.helperPID
  }

  private func run(_ tool: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "\(tool) \(arguments)")
  }
}
