import Foundation
import XCTest

/// Small videos made at test time with FFmpeg's encoders (`ffmpeg`, from Debian), as a
/// phone's camera roll holds them, and damaged copies of them.
public enum TestVideos {
  public static let ffmpeg = "/usr/bin/ffmpeg"

  /// Runs ffmpeg quietly with `arguments`; fails the test with its words when it fails.
  public static func run(_ arguments: [String]) throws {
    try requireTool(ffmpeg)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ffmpeg)
    process.arguments = ["-v", "error", "-y", "-nostdin"] + arguments
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let words = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestFailure(
        "ffmpeg \(arguments.joined(separator: " ")): \(String(decoding: words, as: UTF8.self))")
    }
  }

  /// A 2-second 320×240 H.264 MP4 of FFmpeg's test pattern.
  public static func h264MP4(_ path: String) throws {
    try run([
      "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264", "-pix_fmt",
      "yuv420p",
      path,
    ])
  }

  /// A 2-second 320×240 H.264 MP4 whose container holds `creationTime` (ISO 8601, UTC),
  /// as every phone writes it (`creation_time` in the `mvhd` box).
  public static func datedMP4(_ path: String, creationTime: String) throws {
    try run([
      "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264", "-pix_fmt",
      "yuv420p", "-metadata", "creation_time=" + creationTime, path,
    ])
  }

  /// A 1-second H.264 MP4 of `width`×`height` pixels (even numbers, as yuv420p wants).
  public static func sizedMP4(_ path: String, width: Int, height: Int) throws {
    try run([
      "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=10:duration=1", "-c:v", "libx264",
      "-pix_fmt", "yuv420p", path,
    ])
  }

  /// A `seconds`-long 320×240 H.264 MP4 of FFmpeg's test pattern (its clock counts the
  /// seconds), at 10 frames a second: long enough to seek 10 s in.
  public static func countingMP4(_ path: String, seconds: Int) throws {
    try run([
      "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10:duration=\(seconds)", "-c:v", "libx264", "-pix_fmt",
      "yuv420p", path,
    ])
  }

  /// The picture of `markedMOV`, as stored: blue, a red box in the top-left corner, a white
  /// box in the middle; black for the first second.
  public static let markedPicture =
    "color=c=blue:size=320x240:rate=25:duration=2,drawbox=x=0:y=0:w=80:h=60:color=red:t=fill,"
    + "drawbox=x=110:y=80:w=100:h=80:color=white:t=fill,"
    + "drawbox=x=0:y=0:w=iw:h=ih:color=black:t=fill:enable='lt(t,1)'"

  /// A 2-second 320×240 HEVC QuickTime movie of `markedPicture`, whose display matrix turns
  /// it 90° counterclockwise (FFmpeg's `rotate=90`; ffprobe says rotation=90), so it shows
  /// 240×320 with the red box in the bottom-left corner. With Apple's creation date and
  /// content identifier when given.
  public static func markedMOV(_ path: String, appleDate: String? = nil, contentIdentifier: String? = nil)
    throws
  {
    let plain = path + ".plain.mov"
    defer { try? FileManager.default.removeItem(atPath: plain) }
    try run([
      "-f", "lavfi", "-i", markedPicture, "-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt",
      "yuv420p", "-tag:v", "hvc1", plain,
    ])
    var tags: [String] = []
    if let appleDate { tags += ["-metadata", "com.apple.quicktime.creationdate=" + appleDate] }
    if let contentIdentifier {
      tags += ["-metadata", "com.apple.quicktime.content.identifier=" + contentIdentifier]
    }
    try run(
      ["-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90"]
        + (tags.isEmpty ? [] : ["-movflags", "use_metadata_tags"] + tags) + [path])
  }

  /// `source` cut to its first half: an MP4 as FFmpeg writes it keeps its index (`moov`)
  /// at the end, so the half has none.
  public static func truncated(_ source: String, to path: String) throws {
    let bytes = try fileBytes(source)
    try writeBytes(Array(bytes.prefix(bytes.count / 2)), to: path)
  }

  /// A `seconds`-long 320×240 H.264 MP4 of FFmpeg's test pattern at 25 frames a second,
  /// its index (`moov`) first, as a phone or a web download writes it, with x264's default
  /// of a keyframe every 250 pictures (10 s).
  public static func indexFirstMP4(_ path: String, seconds: Int) throws {
    try run([
      "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)", "-c:v", "libx264", "-pix_fmt",
      "yuv420p", "-movflags", "+faststart", path,
    ])
  }

  /// `source` cut to its first `percent` of bytes: with its index first, a copy cut short
  /// whose header still names every sample.
  public static func cut(_ source: String, to path: String, percent: Int) throws {
    let bytes = try fileBytes(source)
    try writeBytes(Array(bytes.prefix(bytes.count * percent / 100)), to: path)
  }

  /// A 2-second 320×240 MPEG-4 Part 2 MP4 (`-c:v mpeg4`), whose sample description gives
  /// FFmpeg no picture size: only its stream's own header does.
  public static func mpeg4PartTwo(_ path: String) throws {
    try run(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "mpeg4", path])
  }

  /// `source` (an H.264 MP4) with its sample description claiming 65535×65535 pixels: a
  /// header built to make a decoder allocate 4 gigapixels.
  public static func claimingHugePictures(_ source: String, to path: String) throws {
    var bytes = try fileBytes(source)
    guard let description = find("stsd", in: bytes), let entry = find("avc1", in: bytes, from: description)
    else {
      throw TestFailure("\(source) has no avc1 sample description")
    }
    // After the entry's type: 6 reserved bytes, a reference index (2), 16 bytes of
    // pre-defined and reserved fields, then the width (2) and height (2).
    for offset in 28..<32 { bytes[entry + offset] = 0xFF }
    try writeBytes(bytes, to: path)
  }

  /// `source` (an H.264 MP4) with its sync sample table (`stss`) claiming 2^28
  /// keyframes in a few bytes: a header built to make the demuxer allocate 1 GiB.
  public static func claimingHugeTables(_ source: String, to path: String) throws {
    var bytes = try fileBytes(source)
    guard let table = find("stss", in: bytes) else { throw TestFailure("\(source) has no stss box") }
    // After the type: version and flags (4), then the entry count (4).
    bytes.replaceSubrange(table + 8..<table + 12, with: [0x10, 0x00, 0x00, 0x00])
    try writeBytes(bytes, to: path)
  }

  /// `source` (an H.264 MP4) with its sample size table (`stsz`) claiming `samples`
  /// samples of one size in a few bytes: a header built to make the demuxer index them all.
  public static func claimingManySamples(_ source: String, to path: String, samples: UInt32) throws {
    var bytes = try fileBytes(source)
    guard let table = find("stsz", in: bytes) else { throw TestFailure("\(source) has no stsz box") }
    // After the type: version and flags (4), one size for every sample (4), the count (4).
    bytes.replaceSubrange(table + 8..<table + 12, with: [0, 0, 0, 100])
    bytes.replaceSubrange(table + 12..<table + 16, with: withUnsafeBytes(of: samples.bigEndian, Array.init))
    try writeBytes(bytes, to: path)
  }

  static func find(_ type: String, in bytes: [UInt8], from start: Int = 0) -> Int? {
    let pattern = Array(type.utf8)
    return (start..<max(start, bytes.count - 4)).first { bytes[$0..<$0 + 4].elementsEqual(pattern) }
  }
}
