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
  /// `com.apple.quicktime.content.identifier` when given.
  public static func motion(_ path: String, identifier: String? = nil) throws {
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
