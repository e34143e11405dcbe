import Foundation

/// Live Photo halves made at test time: a JPEG still from ImageMagick carrying Apple's
/// content identifier in an EXIF maker note (built here byte by byte, as an iPhone writes
/// it: docs/FORMAT.md, "Live Photos"), and a short MOV from FFmpeg carrying it in its
/// QuickTime metadata.
public enum TestLivePhotos {
  public static let convert = "/usr/bin/convert"
  public static let heifEnc = "/usr/bin/heif-enc"

  /// A 64×48 JPEG of `color`, with `identifier` in an Apple maker note when given.
  public static func still(_ path: String, color: String = "orange", identifier: String? = nil) throws {
    try requireTool(convert)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: convert)
    process.arguments = ["-size", "64x48", "xc:" + color, "-quality", "90", "jpeg:" + path]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw TestFailure("convert failed for \(path)") }
    guard let identifier else { return }
    let bytes = try fileBytes(path)
    try writeBytes(
      Array(bytes.prefix(2)) + exifSegment(identifier: identifier) + bytes.dropFirst(2), to: path)
  }

  /// A HEIC made by heif-enc from `still`'s JPEG, which carries its EXIF (and so the maker
  /// note) into the HEIC's `Exif` item.
  public static func heicStill(_ path: String, color: String = "teal", identifier: String? = nil) throws {
    try requireTool(heifEnc)
    let jpeg = path + ".jpg"
    defer { try? FileManager.default.removeItem(atPath: jpeg) }
    try still(jpeg, color: color, identifier: identifier)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: heifEnc)
    process.arguments = ["--quality", "50", "--output", path, jpeg]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw TestFailure("heif-enc failed for \(path)") }
  }

  /// A 1-second 160×120 H.264 QuickTime movie, with `identifier` as
  /// `com.apple.quicktime.content.identifier` when given, and, with `liveMarkers`, the timed
  /// metadata track declaring `com.apple.quicktime.still-image-time` that an iPhone's Live
  /// Photo movie has (`stillImageTimeTrack`); without it, a video that merely carries the tag.
  public static func motion(_ path: String, identifier: String? = nil, liveMarkers: Bool = true) throws {
    let tags =
      identifier.map {
        ["-movflags", "use_metadata_tags", "-metadata", "com.apple.quicktime.content.identifier=" + $0]
      } ?? []
    try TestVideos.run(
      [
        "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-c:v", "libx264", "-pix_fmt",
        "yuv420p",
      ]
        + tags + ["-f", "mov", path])
    if liveMarkers { try addToMovie(path, track: stillImageTimeTrack()) }
  }

  /// Appends `track` to the `moov` box of the movie at `path`, which must be the file's last
  /// box (as FFmpeg writes it without faststart), so that no sample moves.
  static func addToMovie(_ path: String, track: [UInt8]) throws {
    var bytes = try fileBytes(path)
    var offset = 0
    while offset + 8 <= bytes.count {
      let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      guard size >= 8 else { break }
      if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == "moov" {
        guard offset + size == bytes.count else { throw TestFailure("moov is not the last box of \(path)") }
        bytes.replaceSubrange(offset..<offset + 4, with: u32(size + track.count))
        try writeBytes(bytes + track, to: path)
        return
      }
      offset += size
    }
    throw TestFailure("no moov box in \(path)")
  }

  /// A metadata track (handler `meta`) with no samples, whose one sample description is a
  /// `mebx` entry declaring the key `com.apple.quicktime.still-image-time` (an 8-bit
  /// integer), as QuickTime's metadata sample description lays it out.
  public static func stillImageTimeTrack() -> [UInt8] {
    let identity =
      u32(0x10000) + u32(0) + u32(0) + u32(0) + u32(0x10000) + u32(0) + u32(0) + u32(0) + u32(0x4000_0000)
    let header =
      u32(1) + u32(0) + u32(0) + u32(99) + u32(0) + u32(0) + Array(repeating: 0, count: 8) + u16(0)
      + u16(0) + u16(0) + u16(0) + identity + u32(0) + u32(0)
    let key = box(
      [0, 0, 0, 1],
      box("keyd", Array("mdta".utf8) + Array("com.apple.quicktime.still-image-time".utf8))
        + box("dtyp", u32(0) + u32(65)))
    let entry = box("mebx", Array(repeating: 0, count: 6) + u16(1) + box("keys", key))
    let table =
      box("stsd", u32(0) + u32(1) + entry) + box("stts", u32(0) + u32(0)) + box("stsc", u32(0) + u32(0))
      + box("stsz", u32(0) + u32(0) + u32(0)) + box("stco", u32(0) + u32(0))
    let media =
      box("mdhd", u32(0) + u32(0) + u32(0) + u32(600) + u32(0) + u16(0x55C4) + u16(0))
      + box("hdlr", u32(0) + Array("mhlrmeta".utf8) + u32(0) + u32(0) + u32(0) + [0])
      + box("minf", box("stbl", table))
    return box("trak", box("tkhd", header) + box("mdia", media))
  }

  private static func box(_ type: String, _ contents: [UInt8]) -> [UInt8] { box(Array(type.utf8), contents) }
  private static func box(_ type: [UInt8], _ contents: [UInt8]) -> [UInt8] {
    u32(8 + contents.count) + type + contents
  }

  /// A JPEG APP1 segment: "Exif\0\0", then a big-endian TIFF whose IFD0 points to an Exif
  /// IFD whose `MakerNote` (0x927C) is Apple's, holding `identifier` as its tag 0x0011.
  public static func exifSegment(identifier: String) -> [UInt8] {
    let text = Array(identifier.utf8) + [0]
    // The maker note: signature, version, byte order, a one-entry IFD (offsets from the
    // note's start), the text.
    var note = Array("Apple iOS\0".utf8) + [0, 1] + Array("MM".utf8)
    note += u16(1) + u16(0x0011) + u16(2) + u32(text.count) + u32(14 + 18) + u32(0) + text
    // The TIFF: header (8), IFD0 at 8 (18 bytes), Exif IFD at 26 (18 bytes), the note at 44.
    var tiff = Array("MM".utf8) + u16(42) + u32(8)
    tiff += u16(1) + u16(0x8769) + u16(4) + u32(1) + u32(26) + u32(0)
    tiff += u16(1) + u16(0x927C) + u16(7) + u32(note.count) + u32(44) + u32(0)
    tiff += note
    let payload = Array("Exif\0\0".utf8) + tiff
    return [0xFF, 0xE1] + u16(payload.count + 2) + payload
  }

  private static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
  private static func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value & 0xFFFF) }
}
