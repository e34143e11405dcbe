import VaultCore

/// Finds a photo's EXIF block in its file and reads its details (`ExifReader`): in a JPEG,
/// the first APP1 segment holding EXIF before the image data; in a PNG, its `eXIf` chunk,
/// with its `tIME` chunk as the date when EXIF gives none; in a HEIC, the primary image's
/// `Exif` item (through libheif); in a WebP, its `EXIF` chunk; in an AVIF, its primary
/// image's `Exif` item (through libavif); a GIF carries none; in a video, its container's
/// date (`VideoProbe`). The JPEG and PNG walkers read only the bytes they are
/// given, bounds-checked: a prefix of a file gives what that prefix holds.
public enum PhotoDetailsReader {
  /// The details of a file being imported, whose header `image` read: a HEIC's through
  /// its decoder; a JPEG's or PNG's from `file`, its bytes when they are held in memory,
  /// else from the first `PhotoDetails.prefixLength` bytes of `source`.
  static func read(_ image: OpenedImage, file: PinnedBytes?, source: SourceFile?) throws -> PhotoDetails {
    switch image.decoder {
    case .heif(let decoder): return decoder.details()
    case .frames(let decoder): return decoder.details()
    case .video(let probe): return probe.details
    case .jpeg, .png:
      let format: ImageFormat = if case .jpeg = image.decoder { .jpeg } else { .png }
      if let file { return read(file, format: format) }
      guard let source else { return PhotoDetails() }
      var prefix = try source.readPrefix(PhotoDetails.prefixLength)
      defer { prefix.wipe() }
      return prefix.withUnsafeBytes { format == .jpeg ? jpeg($0) : png($0) }
    }
  }

  /// The details of a whole file held in memory (or, for JPEG and PNG, of its first bytes).
  package static func read(_ file: PinnedBytes, format: ImageFormat) -> PhotoDetails {
    let bytes = UnsafeRawBufferPointer(start: file.baseAddress, count: file.count)
    switch format {
    case .jpeg: return jpeg(bytes)
    case .png: return png(bytes)
    case .heic: return (try? HEIFDecoder(pinned: file, name: "").details()) ?? PhotoDetails()
    case .gif, .webp, .avif:
      return (try? FrameDecoders.open(file, name: "", format: format).details()) ?? PhotoDetails()
    case .mp4, .mov:
      let probe = try? VideoProbe(VideoInput(.memory(file), path: ""), limits: Thumbnailer())
      return probe?.details ?? PhotoDetails()
    }
  }

  /// The details of a JPEG: the first APP1 segment with an EXIF header that reads as TIFF.
  static func jpeg(_ bytes: UnsafeRawBufferPointer) -> PhotoDetails {
    jpegExif(bytes) { ExifReader(app1: $0)?.details } ?? PhotoDetails()
  }

  /// What `read` makes of the first APP1 segment (its payload) for which it makes
  /// something, before the image data; nil when none does.
  static func jpegExif<Value>(
    _ bytes: UnsafeRawBufferPointer, _ read: (UnsafeRawBufferPointer) -> Value?
  ) -> Value? {
    guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    var offset = 2
    while offset <= bytes.count - 4, bytes[offset] == 0xFF {
      let marker = bytes[offset + 1]
      switch marker {
      case 0xFF:
        // A fill byte before a marker.
        offset += 1
        continue
      case 0xD9, 0xDA:
        // The end, or the start of the image data: no more metadata segments.
        return nil
      case 0x01, 0xD0...0xD7:
        // Markers without a length.
        offset += 2
        continue
      default: break
      }
      let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      guard length >= 2, length <= bytes.count - offset - 2 else { return nil }
      if marker == 0xE1,
        let value = read(UnsafeRawBufferPointer(rebasing: bytes[offset + 4..<offset + 2 + length]))
      {
        return value
      }
      offset += 2 + length
    }
    return nil
  }

  static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// The details of a PNG: its `eXIf` chunk (a TIFF structure; a stray "Exif\0\0" in
  /// front is taken too), and, when that gives no date, its `tIME` chunk. The PNG
  /// specification makes `tIME` the time of the image's last change, in UTC: for most PNGs
  /// (screenshots, exports) the nearest thing to a date taken, so it is used, with offset
  /// +00:00. Chunks whose CRC does not match are passed over, as libpng does.
  static func png(_ bytes: UnsafeRawBufferPointer) -> PhotoDetails {
    guard bytes.starts(with: pngSignature) else { return PhotoDetails() }
    var exif: PhotoDetails?
    var modified: CaptureTime?
    var offset = pngSignature.count
    while offset <= bytes.count - 12 {
      let length = Int(bigEndian32(bytes, offset))
      let type = bigEndian32(bytes, offset + 4)
      guard length <= 0x7FFF_FFFF, length <= bytes.count - offset - 12 else { break }
      let data = UnsafeRawBufferPointer(rebasing: bytes[offset + 8..<offset + 8 + length])
      let sound = {
        CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[offset + 4..<offset + 8 + length]))
          == bigEndian32(bytes, offset + 8 + length)
      }
      switch type {
      case ChunkType.end: offset = bytes.count
      case ChunkType.exif where exif == nil && sound():
        let tiff =
          data.starts(with: ExifReader.exifHeader)
          ? UnsafeRawBufferPointer(rebasing: data[ExifReader.exifHeader.count...]) : data
        exif = ExifReader(tiff: tiff)?.details
      case ChunkType.time where modified == nil && length == 7 && sound():
        let year = Int(data[0]) << 8 | Int(data[1])
        modified = CaptureTime.wallClockSeconds(
          year: year, month: Int(data[2]), day: Int(data[3]), hour: Int(data[4]), minute: Int(data[5]),
          second: min(59, Int(data[6]))
        ).map { CaptureTime(localSeconds: $0, utcOffsetMinutes: 0) }
      default: break
      }
      if offset < bytes.count { offset += 12 + length }
    }
    var details = exif ?? PhotoDetails()
    if details.taken == nil { details.taken = modified }
    return details
  }

  private enum ChunkType {
    static let exif: UInt32 = 0x6558_4966  // "eXIf"
    static let time: UInt32 = 0x7449_4D45  // "tIME"
    static let end: UInt32 = 0x4945_4E44  // "IEND"
  }

  private static func bigEndian32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
  }
}

/// The CRC-32 of PNG chunks (ISO 3309, polynomial 0xEDB88320, reflected).
enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
  }

  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
  }
}
