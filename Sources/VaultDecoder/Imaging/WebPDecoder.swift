import CWebP
import VaultCore

/// A WebP, lossy or lossless, a still or an animation, decoded through libwebp from bytes
/// in memory. libwebp's demuxer reads the file's chunks (its canvas, its frames, its EXIF)
/// without decoding pixels, so the size and frame count are known first; a still is then
/// decoded straight into our buffer, an animation's first frame through libwebp's
/// animation decoder, which composes it on the canvas.
final class WebPDecoder: FrameDecoder {
  let path: String
  let pinned: PinnedBytes
  private let demuxer: OpaquePointer
  let width: Int
  let height: Int
  let frameCount: Int
  let orientation = 1

  init(pinned: PinnedBytes, name: String) throws {
    path = name
    self.pinned = pinned
    var data = WebPData(bytes: pinned.baseAddress, size: pinned.count)
    // The demuxer refuses a file whose chunks end before the RIFF size says: nothing is
    // decoded from a part of a file.
    guard let demuxer = WebPDemux(&data) else {
      var state = WEBP_DEMUX_PARSE_ERROR
      let partial = WebPDemuxPartial(&data, &state)
      WebPDemuxDelete(partial)
      let reason =
        state == WEBP_DEMUX_PARSING_HEADER || state == WEBP_DEMUX_PARSED_HEADER
        ? "the file ends too early (truncated)" : "damaged WebP: its chunks cannot be read"
      throw VaultError.decodeFailed(path: name, reason: reason)
    }
    self.demuxer = demuxer
    width = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH))
    height = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
    frameCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
    guard frameCount > 0 else {
      throw VaultError.decodeFailed(path: name, reason: "the WebP holds no picture")
    }
  }

  deinit {
    WebPDemuxDelete(demuxer)
  }

  /// Ours: the frame as RGBA. libwebp's: a lossless picture's whole ARGB plane and
  /// transforms (up to 5 bytes a pixel), or for an animation its canvas twice (the frame
  /// shown and the one before) besides the frame it decodes. And the file.
  var decodingBytes: Int {
    width * height * (isAnimated ? 17 : 9) + width * 1024 + pinned.count
  }

  func decodeFirstFrame() throws -> DecodedFrame {
    isAnimated ? try decodeAnimationStart() : try decodeStill()
  }

  private func decodeStill() throws -> DecodedFrame {
    var config = WebPDecoderConfig()
    guard WebPInitDecoderConfig(&config) != 0 else {
      throw VaultError.decodeFailed(path: path, reason: "libwebp version mismatch")
    }
    let frame = DecodedFrame(width: width, height: height)
    config.output.colorspace = MODE_RGBA
    config.output.is_external_memory = 1
    config.output.u.RGBA.rgba = frame.pixels.baseAddress
    config.output.u.RGBA.stride = Int32(width * 4)
    config.output.u.RGBA.size = frame.pixels.count
    let status = WebPDecode(pinned.baseAddress, pinned.count, &config)
    guard status == VP8_STATUS_OK else {
      throw VaultError.decodeFailed(path: path, reason: Self.reason(status))
    }
    // The bitstream's own size must be the canvas the header gave (the memory counted).
    guard Int(config.output.width) == width, Int(config.output.height) == height else {
      throw VaultError.decodeFailed(path: path, reason: "the picture is not the size its header says")
    }
    return frame
  }

  private func decodeAnimationStart() throws -> DecodedFrame {
    var options = WebPAnimDecoderOptions()
    guard WebPAnimDecoderOptionsInit(&options) != 0 else {
      throw VaultError.decodeFailed(path: path, reason: "libwebp version mismatch")
    }
    options.color_mode = MODE_RGBA
    options.use_threads = 0
    var data = WebPData(bytes: pinned.baseAddress, size: pinned.count)
    guard let decoder = WebPAnimDecoderNew(&data, &options) else {
      throw VaultError.decodeFailed(path: path, reason: "damaged WebP: its animation cannot be read")
    }
    defer { WebPAnimDecoderDelete(decoder) }
    var canvas: UnsafeMutablePointer<UInt8>?
    var timestamp: Int32 = 0
    guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
      throw VaultError.decodeFailed(path: path, reason: "damaged WebP: its first frame cannot be decoded")
    }
    let frame = DecodedFrame(width: width, height: height)
    frame.pixels.baseAddress!.update(from: canvas, count: frame.pixels.count)
    // libwebp's canvas held the decrypted picture too.
    Sodium.zero(canvas, count: frame.pixels.count)
    return frame
  }

  /// The date taken and camera from the file's `EXIF` chunk: a TIFF structure, sometimes
  /// with "Exif\0\0" in front.
  func details() -> PhotoDetails {
    var chunk = WebPChunkIterator()
    guard WebPDemuxGetChunk(demuxer, "EXIF", 1, &chunk) != 0 else { return PhotoDetails() }
    defer { WebPDemuxReleaseChunkIterator(&chunk) }
    var tiff = UnsafeRawBufferPointer(start: chunk.chunk.bytes, count: chunk.chunk.size)
    if tiff.starts(with: ExifReader.exifHeader) {
      tiff = UnsafeRawBufferPointer(rebasing: tiff[ExifReader.exifHeader.count...])
    }
    return ExifReader(tiff: tiff)?.details ?? PhotoDetails()
  }

  private static func reason(_ status: VP8StatusCode) -> String {
    switch status {
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the file ends too early (truncated)"
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory"
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "the WebP uses a feature libwebp does not support"
    default: return "damaged WebP: its picture data cannot be decoded"
    }
  }
}
