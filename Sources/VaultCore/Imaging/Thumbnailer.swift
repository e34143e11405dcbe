/// A thumbnail made on import, and what decoding the photo told us about it.
public struct Thumbnail: Sendable {
  /// The thumbnail, JPEG-encoded, already turned by the EXIF orientation.
  public var jpeg: [UInt8]
  public var thumbnailWidth: Int
  public var thumbnailHeight: Int
  /// The photo's size as shown (after orientation).
  public var width: Int
  public var height: Int
  /// The EXIF orientation (1 when none).
  public var orientation: Int
  /// A non-fatal decoder complaint (e.g. premature end of data), if any.
  public var warning: String?
}

/// Makes thumbnails: long side `longSide` pixels (never enlarged), area-averaged, EXIF
/// orientation applied, transparency composited over a neutral gray, JPEG-encoded.
public struct Thumbnailer: Sendable {
  public var longSide = 512
  public var quality = 80
  /// Images declaring more pixels than this are refused before anything is allocated.
  public var pixelLimit = 200_000_000
  /// Interlaced PNGs up to this many pixels are assembled whole (4 bytes a pixel).
  public var wholeInterlacedPixelLimit = 4_000_000
  /// The gray that transparent pixels are composited over.
  public var background: UInt8 = 128

  public init() {}

  public func makeThumbnail(path: String, format: ImageFormat) throws -> Thumbnail {
    switch format {
    case .jpeg: return try jpegThumbnail(try JPEGDecoder(path: path))
    case .png: return try pngThumbnail(try PNGDecoder(path: path))
    }
  }

  /// The same from a picture held in memory (a decrypted original); `name` stands for it
  /// in errors.
  public func makeThumbnail(bytes: [UInt8], name: String, format: ImageFormat) throws -> Thumbnail {
    switch format {
    case .jpeg: return try jpegThumbnail(try JPEGDecoder(bytes: bytes, name: name))
    case .png: return try pngThumbnail(try PNGDecoder(bytes: bytes, name: name))
    }
  }

  /// The thumbnail size for a picture, keeping its aspect and never enlarging it.
  public func targetSize(width: Int, height: Int) -> (width: Int, height: Int) {
    let long = max(width, height)
    guard long > longSide else { return (width, height) }
    let scale = Double(longSide) / Double(long)
    return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
  }

  private func checkPixelCount(path: String, width: Int, height: Int) throws {
    guard width > 0, height > 0 else {
      throw VaultError.decodeFailed(path: path, reason: "image has no pixels")
    }
    if width * height > pixelLimit {
      throw VaultError.imageTooLarge(path: path, width: width, height: height, limit: pixelLimit)
    }
  }

  private func jpegThumbnail(_ decoder: JPEGDecoder) throws -> Thumbnail {
    try checkPixelCount(path: decoder.path, width: decoder.width, height: decoder.height)
    let target = targetSize(width: decoder.width, height: decoder.height)
    let denominator = JPEGDecoder.scaleDenominator(
      width: decoder.width, height: decoder.height, targetWidth: target.width, targetHeight: target.height)
    let scaledWidth = (decoder.width + denominator - 1) / denominator
    let scaledHeight = (decoder.height + denominator - 1) / denominator
    var resampler = AreaResampler(
      sourceWidth: scaledWidth, sourceHeight: scaledHeight, targetWidth: target.width,
      targetHeight: target.height)
    let orientation = decoder.orientation()
    _ = try decoder.decode(scaleDenominator: denominator) { row in resampler.addRow(row) }
    return try finish(
      resampler.finish(), width: decoder.width, height: decoder.height, orientation: orientation,
      warning: decoder.warning)
  }

  private func pngThumbnail(_ decoder: PNGDecoder) throws -> Thumbnail {
    try checkPixelCount(path: decoder.path, width: decoder.width, height: decoder.height)
    let target = targetSize(width: decoder.width, height: decoder.height)
    // Assembling a large interlaced picture would take 4 bytes a pixel; when it shrinks at
    // least 2× anyway, its last Adam7 pass (every odd row, full width) is enough.
    let lastPassOnly =
      decoder.isInterlaced && decoder.width * decoder.height > wholeInterlacedPixelLimit
      && target.height * 2 <= decoder.height
    var resampler = AreaResampler(
      sourceWidth: decoder.width, sourceHeight: lastPassOnly ? decoder.height / 2 : decoder.height,
      targetWidth: target.width, targetHeight: target.height)
    var rgb = [UInt8](repeating: 0, count: decoder.width * 3)
    let background = UInt32(self.background)
    let width = decoder.width
    try decoder.decode(lastPassOnly: lastPassOnly) { rgba in
      rgb.withUnsafeMutableBufferPointer { out in
        for x in 0..<width {
          let alpha = UInt32(rgba[x * 4 + 3])
          for channel in 0..<3 {
            let value = UInt32(rgba[x * 4 + channel])
            out[x * 3 + channel] = UInt8((value * alpha + background * (255 - alpha) + 127) / 255)
          }
        }
        resampler.addRow(out.baseAddress!)
      }
    }
    return try finish(
      resampler.finish(), width: decoder.width, height: decoder.height, orientation: 1, warning: nil)
  }

  private func finish(_ image: RGBImage, width: Int, height: Int, orientation: Int, warning: String?) throws
    -> Thumbnail
  {
    let oriented = image.oriented(orientation)
    let swaps = ExifOrientation.swapsDimensions(orientation)
    return Thumbnail(
      jpeg: try JPEGEncoder.encode(oriented, quality: quality), thumbnailWidth: oriented.width,
      thumbnailHeight: oriented.height, width: swaps ? height : width, height: swaps ? width : height,
      orientation: orientation, warning: warning)
  }
}
