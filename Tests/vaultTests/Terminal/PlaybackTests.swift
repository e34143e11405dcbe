import Foundation
import VaultTerminal
import VaultTestSupport
import XCTest

/// `vault view` playing a video and animating a GIF and a WebP on a real terminal (tmux),
/// in symbols: the time on the progress line advances, pauses, seeks, and `q` goes back to
/// the still; a damaged video says so on the status line.
final class PlaybackTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  func viewer(_ arguments: String) throws -> TmuxSession {
    try TmuxSession(
      "stty -a > stty-before.txt; \(VaultRunner.binary) view \(arguments); echo \"exit status $?\"; stty -a > stty-after.txt",
      in: folder,
      environment: [
        "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
      ], width: 100, height: 40)
  }

  /// The progress line's mark and time in seconds ("▶ 0:03 / 0:12"), if it shows.
  static func progress(_ screen: String) -> (mark: String, seconds: Int)? {
    let pattern = try! Regex(
      #"([▶‖]) (\d+):(\d\d) / 0:12"#, as: (Substring, Substring, Substring, Substring).self)
    guard let match = screen.firstMatch(of: pattern) else { return nil }
    return (String(match.1), Int(match.2)! * 60 + Int(match.3)!)
  }

  func testAVideoPlaysPausesSeeksAndStopsBackToItsStill() throws {
    try TestVideos.countingMP4(folder + "/clip.mp4", seconds: 12)
    XCTAssertEqual(try vault.run(["add", folder + "/clip.mp4"]).status, 0)
    let session = try viewer("--mode symbols 1")
    try session.wait(until: "the video's still with its duration") {
      $0.contains("clip.mp4  320×240  video 0:12  Enter: play") && !$0.contains("loading")
    }
    try session.send("Enter")
    try session.wait(until: "the time advances past 0:01") {
      (Self.progress($0).map { $0.mark == "▶" && $0.seconds >= 1 }) ?? false
    }
    try session.type(" ")
    var screen = try session.wait(until: "paused") { Self.progress($0)?.mark == "‖" }
    let paused = try XCTUnwrap(Self.progress(screen)).seconds
    try session.send("Right")
    screen = try session.wait(until: "10 s on") {
      (Self.progress($0).map { $0.mark == "‖" && $0.seconds >= paused + 9 }) ?? false
    }
    // Never past the end (0:12), however late the pause came on a loaded machine (paused at
    // 0:02, ten seconds on is the end: the test read 12 against a bound of 11).
    XCTAssertLessThanOrEqual(try XCTUnwrap(Self.progress(screen)).seconds, min(12, paused + 11), screen)
    try session.send("Left")
    try session.wait(until: "10 s back") {
      (Self.progress($0).map { $0.mark == "‖" && $0.seconds <= paused + 1 }) ?? false
    }
    try session.type(" ")
    try session.wait(until: "playing again") { Self.progress($0)?.mark == "▶" }
    try session.type("q")
    screen = try session.wait(until: "back to the still") {
      $0.contains("video 0:12  Enter: play") && Self.progress($0) == nil
    }
    XCTAssertFalse(screen.contains("▶") || screen.contains("‖"), screen)
    try session.type("q")
    screen = try session.waitUntilFinished()
    XCTAssertTrue(screen.contains("exit status 0"), screen)
    XCTAssertFalse(screen.contains("clip.mp4"), "the alternate screen is gone:\n\(screen)")
    try assertSameTerminalSettings("stty-after.txt", as: "stty-before.txt", in: folder)
  }

  /// A Live Photo's motion plays on Enter, which did nothing: its key and duration on the
  /// status line, then its progress, and `q` back to the still; its details (`i`) name the
  /// MOV with its size, duration and codec.
  func testALivePhotosMotionPlaysOnEnterAndItsDetailsNameIt() throws {
    try TestLivePhotos.still(folder + "/IMG_0001.JPG", identifier: "LIVE-0001")
    try TestLivePhotos.motion(folder + "/IMG_0001.MOV", identifier: "LIVE-0001")
    let added = try vault.run(["add", folder + "/IMG_0001.JPG", folder + "/IMG_0001.MOV"])
    XCTAssertEqual(added.status, 0, added.stderr)
    let session = try viewer("--mode symbols 1")
    try session.wait(until: "the still, with its motion's duration and key") {
      $0.contains("IMG_0001.JPG  64×48  live 0:01  Enter: play") && !$0.contains("loading")
    }
    try session.send("Enter")
    try session.wait(until: "its motion plays") { $0.contains(" / 0:01  ← →: 10 s  q: stop") }
    try session.type("q")
    try session.wait(until: "back to the still") { $0.contains("live 0:01  Enter: play") }
    try session.type("i")
    let size = PhotoListing.byteCount(Int64(try fileBytes(folder + "/IMG_0001.MOV").count))
    let screen = try session.wait(until: "the details name its motion") {
      $0.contains("IMG_0001.MOV") && $0.contains(size) && $0.contains("0:01, h264")
    }
    XCTAssertTrue(screen.contains("motion"), screen)
    try session.type("q")
    XCTAssertTrue(try session.waitUntilFinished().contains("exit status 0"))
  }

  func testAVideoPlayedToItsEndShowsItsWholeDuration() throws {
    // 10 frames a second: the last one is at 2.9 s, which reads 0:02.
    try TestVideos.countingMP4(folder + "/clip.mp4", seconds: 3)
    XCTAssertEqual(try vault.run(["add", folder + "/clip.mp4"]).status, 0)
    let session = try viewer("--mode symbols 1")
    try session.wait(until: "the video's still with its duration") {
      $0.contains("video 0:03  Enter: play") && !$0.contains("loading")
    }
    try session.send("Enter")
    let screen = try session.wait(until: "the end, paused") { $0.contains("‖ 0:0") }
    XCTAssertTrue(screen.contains("‖ 0:03 / 0:03"), screen)
    try session.type("q")
    try session.type("q")
    XCTAssertTrue(try session.waitUntilFinished().contains("exit status 0"))
  }

  /// Colours drawn on the screen (with its escapes) as (red, green, blue).
  static func colours(_ screen: String) -> [(Int, Int, Int)] {
    let pattern = try! Regex(
      #"[34]8;2;(\d+);(\d+);(\d+)"#, as: (Substring, Substring, Substring, Substring).self)
    return screen.matches(of: pattern).map { (Int($0.1)!, Int($0.2)!, Int($0.3)!) }
  }

  func testAnAnimatedGIFAndWebPAnimate() throws {
    try requireTool("/usr/bin/convert")
    let gif = folder + "/blink.gif"
    // Half a second red, half a second blue, over and over.
    try runTool(
      "/usr/bin/convert", ["-delay", "50", "-size", "96x64", "xc:red", "xc:blue", "-loop", "0", gif])
    try TestVideos.run(["-i", gif, "-c:v", "libwebp_anim", "-loop", "0", folder + "/blink.webp"])
    XCTAssertEqual(try vault.run(["add", gif, folder + "/blink.webp"]).status, 0)
    for number in 1...2 {
      let session = try viewer("--mode symbols \(number)")
      try session.wait(for: "blink")
      for (what, wanted) in [
        ("red", { (c: (Int, Int, Int)) in c.0 > 200 && c.2 < 60 }), ("blue", { $0.2 > 200 && $0.0 < 60 }),
      ] {
        try session.wait(until: "photo \(number) shows \(what)", escapes: true) {
          Self.colours($0).contains(where: wanted)
        }
      }
      // Red again: it loops.
      try session.wait(until: "photo \(number) shows red again", escapes: true) {
        let colours = Self.colours($0)
        return colours.contains { $0.0 > 200 && $0.2 < 60 } && !colours.contains { $0.2 > 200 && $0.0 < 60 }
      }
      try session.type("q")
      XCTAssertTrue(try session.waitUntilFinished().contains("exit status 0"))
    }
  }

  func testADamagedVideoSaysSoOnTheStatusLine() throws {
    try TestVideos.countingMP4(folder + "/clip.mp4", seconds: 12)
    XCTAssertEqual(try vault.run(["add", folder + "/clip.mp4"]).status, 0)
    // A byte of the stored original flipped, 70% in: a chunk the still never reads (its
    // picture is at 10%; the index is at the end), but playing does.
    let blob = try XCTUnwrap(storedOriginals().first)
    var bytes = try fileBytes(blob)
    bytes[bytes.count * 7 / 10] ^= 0x01
    try writeBytes(bytes, to: blob)
    let session = try viewer("--mode symbols 1")
    try session.wait(until: "the still") { $0.contains("Enter: play") && !$0.contains("loading") }
    try session.send("Enter")
    // The damaged chunk is named, not taken for the video's end or a stall.
    try session.wait(for: "error: photo 'clip.mp4' (Photo/")
    // The viewer goes on: back to the still, and it quits cleanly.
    try session.wait(until: "back to the still") { $0.contains("Enter: play") && Self.progress($0) == nil }
    try session.type("q")
    XCTAssertTrue(try session.waitUntilFinished().contains("exit status 0"))
    try assertSameTerminalSettings("stty-after.txt", as: "stty-before.txt", in: folder)
  }

  /// The encrypted originals in the vault's space folder.
  func storedOriginals() throws -> [String] {
    let root = URL(fileURLWithPath: vault.vault)
    let all = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.allObjects ?? []
    return all.compactMap { ($0 as? URL)?.path }.filter { $0.contains("/Photo/") && !$0.hasSuffix("/Photo") }
  }

  func runTool(_ path: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw TestFailure("\(path) failed") }
  }
}
