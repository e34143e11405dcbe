import CFFmpeg
import VaultCore

/// A video's representative picture: not its first, which is often black (a fade in, a
/// lens cap, a pocket), but the first keyframe at or after 10% of the duration, as
/// ffmpegthumbnailer takes by default; when that one is flat (its luma varies less than
/// `flatVariance`), pictures further on (35%, 60%, 85%) are tried, and the one whose luma
/// varies most is kept. A keyframe decodes on its own, so a try costs one picture; where
/// no keyframe follows the try's time (a short clip in one group of pictures), it seeks to
/// the keyframe before and decodes up to the time, at most `framesPerTry` pictures. So it
/// does where the keyframe after the time does not decode: a copy cut short, whose header
/// names keyframes past its end.
struct VideoStill {
  /// Variance of 8-bit luma below which a picture counts as flat (a standard deviation of
  /// 12 levels: black, a single colour, a dark blur).
  static let flatVariance = 144.0
  /// Where in the video pictures are tried, as fractions of its duration.
  static let tries = [0.10, 0.35, 0.60, 0.85]
  /// Pictures decoded at most for one try (a long group of pictures is not decoded whole).
  static let framesPerTry = 300

  /// The chosen picture, held until the still is made.
  private var best: UnsafeMutablePointer<AVFrame>?
  private var bestVariance = -1.0

  /// Finds the picture of `frames`' video to show.
  static func picture(of frames: VideoFrames) throws -> VideoPicture {
    var still = VideoStill()
    defer { av_frame_free(&still.best) }
    let duration = frames.probe.durationMicroseconds
    for (number, fraction) in tries.enumerated() {
      let time = Int64(Double(duration) * fraction)
      // The first try decodes from the start if it cannot seek; later ones need to.
      let sought =
        frames.seek(toMicroseconds: time, backward: false) || frames.seek(toMicroseconds: time)
      guard sought || number == 0 else { break }
      if try !still.take(from: frames, at: time), frames.seek(toMicroseconds: time) {
        try still.take(from: frames, at: time)
      }
      if still.bestVariance >= flatVariance { break }
    }
    guard let best = still.best else {
      throw VaultError.videoUnreadable(path: frames.probe.path, reason: "no picture of it can be decoded")
    }
    still.best = nil
    return VideoPicture(frame: best)
  }

  /// Decodes from where `frames` stands to the picture at `time` (or the last before the
  /// end, or the last of the try's pictures), and keeps it if it varies more than the best.
  /// False when no picture decodes from there.
  @discardableResult
  private mutating func take(from frames: VideoFrames, at time: Int64) throws -> Bool {
    var latest = av_frame_alloc()
    defer { av_frame_free(&latest) }
    var decoded = 0
    while let picture = try frames.next() {
      decoded += 1
      av_frame_unref(latest)
      guard av_frame_ref(latest, picture) >= 0 else { break }
      if let at = frames.microseconds(of: picture), at < time, decoded < Self.framesPerTry { continue }
      break
    }
    guard decoded > 0, let latest else { return false }
    let variance = Self.lumaVariance(latest)
    guard variance > bestVariance else { return true }
    bestVariance = variance
    av_frame_free(&best)
    best = av_frame_clone(latest)
    return true
  }

  /// The variance of the first plane's samples (luma, for the YUV pictures cameras make) on
  /// a grid of at most 64×64 samples, on the 8-bit scale.
  static func lumaVariance(_ picture: UnsafePointer<AVFrame>) -> Double {
    let width = Int(picture.pointee.width)
    let height = Int(picture.pointee.height)
    guard width > 0, height > 0, let plane = picture.pointee.data.0,
      let description = av_pix_fmt_desc_get(AVPixelFormat(rawValue: picture.pointee.format))
    else { return 0 }
    let depth = Int(description.pointee.comp.0.depth)
    let wide = depth > 8
    let lineSize = Int(picture.pointee.linesize.0)
    let stepX = max(1, width / 64)
    let stepY = max(1, height / 64)
    var sum = 0.0
    var squares = 0.0
    var count = 0.0
    for y in stride(from: 0, to: height, by: stepY) {
      let row = plane + y * lineSize
      for x in stride(from: 0, to: width, by: stepX) {
        let sample =
          wide
          ? Double(UnsafeRawPointer(row).loadUnaligned(fromByteOffset: x * 2, as: UInt16.self) >> (depth - 8))
          : Double(row[x])
        sum += sample
        squares += sample * sample
        count += 1
      }
    }
    let mean = sum / count
    return max(0, squares / count - mean * mean)
  }
}

/// A decoded picture of a video, owned until it is scaled.
final class VideoPicture {
  private var frame: UnsafeMutablePointer<AVFrame>?

  init(frame: UnsafeMutablePointer<AVFrame>) {
    self.frame = frame
  }

  deinit {
    av_frame_free(&frame)
  }

  var width: Int { Int(frame!.pointee.width) }
  var height: Int { Int(frame!.pointee.height) }

  /// Room past the last row for libswscale, which writes RGB in groups of pixels: up to 8
  /// past a row's end when the width is not a multiple of 8 (24 bytes measured, at 200 and
  /// 296 pixels). Into the next row that is harmless; past the last, it overwrote the heap
  /// (`malloc(): invalid size`, a 300×300 video).
  static let scalerOverrun = 16 * 3 * 4

  /// The picture scaled to `width`×`height` RGB (as stored: not yet turned), its colours
  /// converted with the matrix and range the stream gives (BT.709 for HD pictures that
  /// give none, BT.601 for smaller ones, as players assume).
  func scaled(width targetWidth: Int, height targetHeight: Int, path: String) throws -> RGBImage {
    let picture = frame!.pointee
    guard
      let scaler = sws_getContext(
        picture.width, picture.height, AVPixelFormat(rawValue: picture.format), Int32(targetWidth),
        Int32(targetHeight), AV_PIX_FMT_RGB24, SWS_AREA, nil, nil, nil)
    else {
      throw VaultError.videoUnreadable(path: path, reason: "its pictures' pixel format cannot be converted")
    }
    defer { sws_freeContext(scaler) }
    var space = Int32(picture.colorspace.rawValue)
    if picture.colorspace == AVCOL_SPC_UNSPECIFIED || picture.colorspace == AVCOL_SPC_RGB {
      space = picture.height >= 720 ? SWS_CS_ITU709 : SWS_CS_DEFAULT
    }
    let fullRange: Int32 = picture.color_range == AVCOL_RANGE_JPEG ? 1 : 0
    _ = sws_setColorspaceDetails(
      scaler, sws_getCoefficients(space), fullRange, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16,
      1 << 16)
    let length = targetWidth * targetHeight * 3
    var pixels = [UInt8](repeating: 0, count: length + Self.scalerOverrun)
    let rows = pixels.withUnsafeMutableBufferPointer { output -> Int32 in
      var planes: [UnsafeMutablePointer<UInt8>?] = [output.baseAddress, nil, nil, nil]
      var strides: [Int32] = [Int32(targetWidth * 3), 0, 0, 0]
      return withUnsafePointer(to: frame!.pointee.data) { data in
        withUnsafePointer(to: frame!.pointee.linesize) { lines in
          data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { source in
            lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
              sws_scale(scaler, source, sourceStrides, 0, picture.height, &planes, &strides)
            }
          }
        }
      }
    }
    // The overrun is picture too (the last row's scaler writing on): wiped, then dropped.
    pixels.withUnsafeMutableBytes { Sodium.zero($0.baseAddress! + length, count: Self.scalerOverrun) }
    pixels.removeLast(Self.scalerOverrun)
    guard rows == Int32(targetHeight) else {
      pixels.wipe()
      throw VaultError.videoUnreadable(path: path, reason: "its picture cannot be scaled")
    }
    return RGBImage(width: targetWidth, height: targetHeight, pixels: pixels)
  }
}
