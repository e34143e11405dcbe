import CAvif
import VaultCore

/// An AVIF, a still or an image sequence, decoded through libavif (AV1 through dav1d) from
/// bytes in memory. libavif reads the boxes first (the size, the frame count, the EXIF)
/// and is told our limits, which it also hands to dav1d for the size of what the AV1 data
/// itself codes; then the first frame is decoded and converted to RGBA. libavif does not
/// apply the file's rotation and mirroring (irot, imir): they are expressed as the EXIF
/// orientation that does the same and applied as a JPEG's is. An EXIF orientation inside
/// the file is never applied on top (as for HEIC).
final class AVIFDecoder: FrameDecoder {
  let path: String
  private let pinned: PinnedBytes
  private let decoder: UnsafeMutablePointer<avifDecoder>
  let width: Int
  let height: Int
  let frameCount: Int
  let orientation: Int
  private let bytesPerSample: Int
  private let hasAlpha: Bool

  /// The most pixels libavif and dav1d are allowed to decode, whatever the boxes say; the
  /// thumbnailer's own limit is checked on the size the boxes give.
  static let decoderPixelLimit: UInt32 = 200_000_000
  /// The most frames libavif reads the index of; the thumbnailer bounds frames × pixels.
  static let decoderFrameLimit: UInt32 = 100_000

  init(pinned: PinnedBytes, name: String) throws {
    path = name
    self.pinned = pinned
    guard let decoder = avifDecoderCreate() else {
      throw VaultError.decodeFailed(path: name, reason: "out of memory")
    }
    self.decoder = decoder
    decoder.pointee.maxThreads = 1
    decoder.pointee.imageSizeLimit = Self.decoderPixelLimit
    decoder.pointee.imageCountLimit = Self.decoderFrameLimit
    var result = avifDecoderSetIOMemory(decoder, pinned.baseAddress, pinned.count)
    if result == AVIF_RESULT_OK { result = avifDecoderParse(decoder) }
    guard result == AVIF_RESULT_OK, let image = decoder.pointee.image else {
      let reason = Self.reason(result, decoder)
      avifDecoderDestroy(decoder)
      throw VaultError.decodeFailed(path: name, reason: reason)
    }
    width = Int(image.pointee.width)
    height = Int(image.pointee.height)
    frameCount = Int(decoder.pointee.imageCount)
    bytesPerSample = image.pointee.depth > 8 ? 2 : 1
    hasAlpha = decoder.pointee.alphaPresent != 0
    orientation = Self.orientation(image.pointee)
  }

  deinit {
    avifDecoderDestroy(decoder)
  }

  /// dav1d's picture and its reference (3 planes of a 4:4:4 picture at most), libavif's
  /// copy with alpha, and ours as RGBA; measured as libheif's AV1 path (7.6 bytes a pixel
  /// at 8 bits, 4:2:0) with room for 4:4:4, 10 bits and alpha. And the file, twice.
  var decodingBytes: Int {
    width * height * (4 + 6 * bytesPerSample + (hasAlpha ? 2 * bytesPerSample : 0)) + 2 * pinned.count
  }

  func decodeFirstFrame() throws -> DecodedFrame {
    let result = avifDecoderNextImage(decoder)
    guard result == AVIF_RESULT_OK, let image = decoder.pointee.image else {
      throw VaultError.decodeFailed(path: path, reason: Self.reason(result, decoder))
    }
    // What was decoded must be what the memory was counted for.
    guard Int(image.pointee.width) == width, Int(image.pointee.height) == height else {
      throw VaultError.decodeFailed(path: path, reason: "the picture is not the size its header says")
    }
    let frame = DecodedFrame(width: width, height: height)
    var rgb = avifRGBImage()
    avifRGBImageSetDefaults(&rgb, image)
    rgb.format = AVIF_RGB_FORMAT_RGBA
    rgb.depth = 8
    rgb.alphaPremultiplied = 0
    rgb.pixels = frame.pixels.baseAddress
    rgb.rowBytes = UInt32(width * 4)
    let converted = avifImageYUVToRGB(image, &rgb)
    guard converted == AVIF_RESULT_OK else {
      throw VaultError.decodeFailed(path: path, reason: Self.reason(converted, decoder))
    }
    if !hasAlpha {
      for y in 0..<height {
        let row = frame.row(y)
        for x in 0..<width { row[x * 4 + 3] = 255 }
      }
    }
    return frame
  }

  /// The date taken and camera from the primary image's `Exif` item, which libavif hands
  /// over without its 4-byte offset to the TIFF header; an "Exif\0\0" may remain in front.
  func details() -> PhotoDetails {
    guard let image = decoder.pointee.image, let data = image.pointee.exif.data, image.pointee.exif.size > 0
    else { return PhotoDetails() }
    var tiff = UnsafeRawBufferPointer(start: data, count: image.pointee.exif.size)
    if tiff.starts(with: ExifReader.exifHeader) {
      tiff = UnsafeRawBufferPointer(rebasing: tiff[ExifReader.exifHeader.count...])
    }
    return ExifReader(tiff: tiff)?.details ?? PhotoDetails()
  }

  /// EXIF orientations for HEIF's rotation (irot: quarter turns anti-clockwise) followed
  /// by its mirroring (imir mode 0: top and bottom exchanged; 1: left and right), the order
  /// in which HEIF applies them. Rows: the quarter turns; columns: no mirror, mode 0, mode 1.
  private static let orientations = [[1, 4, 2], [8, 5, 7], [3, 2, 4], [6, 7, 5]]

  static func orientation(_ image: avifImage) -> Int {
    let turns = image.transformFlags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(image.irot.angle & 3) : 0
    let mirror = image.transformFlags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? 1 + Int(image.imir.mode & 1) : 0
    return orientations[turns][mirror]
  }

  /// libavif's detailed message when it gave one, else its result's name.
  private static func reason(_ result: avifResult, _ decoder: UnsafeMutablePointer<avifDecoder>) -> String {
    if result == AVIF_RESULT_TRUNCATED_DATA { return "the file ends too early (truncated)" }
    let detail = withUnsafeBytes(of: decoder.pointee.diag.error) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
    let name = String(cString: avifResultToString(result)).lowercased()
    return detail.isEmpty ? name : "\(name): \(detail)"
  }
}
