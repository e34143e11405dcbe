import VaultCore

/// Thumbnails of GIF, WebP and AVIF files, from their first frame, and the limits their
/// headers are checked against.
extension Thumbnailer {
  /// Refuses, from its header, a file whose canvas or largest frame has more pixels than
  /// `pixelLimit`, or whose frames come to more than `animationPixelLimit`.
  func checkFrames(_ decoder: FrameDecoder) throws {
    try checkPixelCount(path: decoder.path, width: decoder.width, height: decoder.height)
    let framePixels = max(decoder.width * decoder.height, decoder.largestFramePixels)
    if framePixels > pixelLimit {
      throw VaultError.decodeFailed(
        path: decoder.path, reason: "a frame has \(framePixels) pixels, more than the limit of \(pixelLimit)")
    }
    let (frames, overflow) = decoder.frameCount.multipliedReportingOverflow(by: framePixels)
    if overflow || frames > animationPixelLimit {
      throw VaultError.decodeFailed(
        path: decoder.path,
        reason:
          "its \(decoder.frameCount) frames of \(decoder.width)×\(decoder.height) pixels are over the "
          + "limit of \(animationPixelLimit / 1_000_000) megapixels for an animation")
    }
  }

  func frameThumbnail(_ decoder: FrameDecoder) throws -> ThumbnailPicture {
    let frame = try decoder.decodeFirstFrame()
    let target = targetSize(width: frame.width, height: frame.height)
    var resampler = AreaResampler(
      sourceWidth: frame.width, sourceHeight: frame.height, targetWidth: target.width,
      targetHeight: target.height)
    rgbRows(of: frame) { resampler.addRow($0) }
    return finish(
      resampler.finish(), width: frame.width, height: frame.height, orientation: decoder.orientation,
      warning: nil)
  }

  /// Hands each row of a decoded frame to `consume` as RGB, transparency composited over
  /// `background`.
  func rgbRows(of frame: DecodedFrame, consume: (UnsafePointer<UInt8>) -> Void) {
    var rgb = [UInt8](repeating: 0, count: frame.width * 3)
    defer { rgb.wipe() }
    for y in 0..<frame.height {
      composite(frame.row(y), width: frame.width, into: &rgb)
      rgb.withUnsafeBufferPointer { consume($0.baseAddress!) }
    }
  }
}
