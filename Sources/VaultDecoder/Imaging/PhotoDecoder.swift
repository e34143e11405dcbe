import VaultCore

/// Decodes originals held in memory for showing: a JPEG at the DCT scale a size needs, a PNG
/// whole, a HEIC (and a GIF's, WebP's or AVIF's first frame) whole then averaged down as a
/// JPEG would be scaled, all under the
/// thumbnailer's pixel and memory limits (refused with the same errors as on import),
/// straight into their shown orientation, with the details their files give.
enum PhotoDecoder {
  /// Decodes `plaintext`, a `format` picture that `name` stands for in errors. With a
  /// `minimumSize` (as shown), a JPEG is decoded at the largest DCT scale denominator that
  /// still gives at least that size; without, at full size.
  static func decode(
    _ plaintext: PlaintextBytes, format: ImageFormat, name: String, minimumSize: PixelSize?,
    limits: Thumbnailer
  ) throws -> DecodedPhoto {
    switch format {
    case .jpeg:
      return try decodeJPEG(
        JPEGDecoder(pinned: plaintext.pinned, name: name), compressedBytes: plaintext.count,
        minimumSize: minimumSize, limits: limits,
        details: PhotoDetailsReader.read(plaintext.pinned, format: .jpeg))
    case .png:
      return try decodePNG(
        PNGDecoder(pinned: plaintext.pinned, name: name), compressedBytes: plaintext.count, limits: limits,
        details: PhotoDetailsReader.read(plaintext.pinned, format: .png))
    case .heic:
      return try decodeHEIF(
        HEIFDecoder(pinned: plaintext.pinned, name: name), compressedBytes: plaintext.count,
        minimumSize: minimumSize, limits: limits)
    case .gif, .webp, .avif:
      return try decodeFrames(
        FrameDecoders.open(plaintext.pinned, name: name, format: format), compressedBytes: plaintext.count,
        minimumSize: minimumSize, limits: limits)
    case .mp4, .mov:
      return try decodeVideo(
        VideoProbe(VideoInput(.memory(plaintext.pinned), path: name), limits: limits),
        minimumSize: minimumSize,
        limits: limits)
    }
  }

  /// How much a picture of `width`×`height` as stored may be scaled down (1, 2, 4 or 8) and
  /// still be at least `minimumSize` as shown, turned by `orientation`; 1 without a size.
  static func scaleDenominator(width: Int, height: Int, orientation: Int, atLeast minimumSize: PixelSize?)
    -> Int
  {
    guard let minimumSize else { return 1 }
    let swaps = ExifOrientation.swapsDimensions(orientation)
    return JPEGDecoder.scaleDenominator(
      width: width, height: height,
      targetWidth: max(1, swaps ? minimumSize.height : minimumSize.width),
      targetHeight: max(1, swaps ? minimumSize.width : minimumSize.height))
  }

  private static func decodeJPEG(
    _ decoder: JPEGDecoder, compressedBytes: Int, minimumSize: PixelSize?, limits: Thumbnailer,
    details: PhotoDetails
  ) throws -> DecodedPhoto {
    try limits.checkPixelCount(path: decoder.path, width: decoder.width, height: decoder.height)
    let orientation = decoder.orientation()
    let denominator = scaleDenominator(
      width: decoder.width, height: decoder.height, orientation: orientation, atLeast: minimumSize)
    let swaps = ExifOrientation.swapsDimensions(orientation)
    let scaledWidth = (decoder.width + denominator - 1) / denominator
    let scaledHeight = (decoder.height + denominator - 1) / denominator
    // As the thumbnailer counts libjpeg's buffers, plus the whole picture and the file.
    let memory =
      decoder.coefficientBytes + decoder.width * decoder.components * 48 + scaledWidth * 48
      + scaledWidth * scaledHeight * 3 + compressedBytes + Thumbnailer.fixedMemory
    try limits.checkMemory(path: decoder.path, bytes: memory)
    let image = try RGBImage.decode(
      decoder, scaleDenominator: denominator, orientation: orientation, memoryLimit: memory)
    return DecodedPhoto(
      image: image,
      fullSize: PixelSize(
        width: swaps ? decoder.height : decoder.width, height: swaps ? decoder.width : decoder.height),
      scaleDenominator: denominator, details: details)
  }

  private static func decodePNG(
    _ decoder: PNGDecoder, compressedBytes: Int, limits: Thumbnailer, details: PhotoDetails
  ) throws -> DecodedPhoto {
    let width = decoder.width
    let height = decoder.height
    try limits.checkPixelCount(path: decoder.path, width: width, height: height)
    // As the thumbnailer counts libpng's rows and an interlaced picture assembled whole,
    // plus the whole picture and the file.
    var memory = width * (3 * 8 + 4 + 64 + 3) + width * height * 3 + compressedBytes + Thumbnailer.fixedMemory
    if decoder.isInterlaced { memory += width * height * 4 + height * 8 }
    try limits.checkMemory(path: decoder.path, bytes: memory)
    var canvas = OrientedCanvas(storedWidth: width, storedHeight: height, orientation: 1)
    var row = [UInt8](repeating: 0, count: width * 3)
    defer { row.wipe() }
    do {
      try decoder.decode { rgba in
        limits.composite(rgba, width: width, into: &row)
        row.withUnsafeBufferPointer { canvas.addRow($0.baseAddress!) }
      }
      guard canvas.isComplete else {
        throw VaultError.decodeFailed(path: decoder.path, reason: "the picture ends early")
      }
    } catch {
      canvas.wipe()
      throw error
    }
    return DecodedPhoto(
      image: canvas.finish(), fullSize: PixelSize(width: width, height: height), scaleDenominator: 1,
      details: details)
  }

  private static func decodeHEIF(
    _ decoder: HEIFDecoder, compressedBytes: Int, minimumSize: PixelSize?, limits: Thumbnailer
  ) throws -> DecodedPhoto {
    try limits.checkPixelCount(path: decoder.path, width: decoder.width, height: decoder.height)
    // libheif decodes only the whole picture; for a smaller size asked for, it is averaged
    // down by the factor a JPEG's DCT scaling would use, so that the photo kept for
    // showing is no larger than a JPEG's would be.
    var denominator = 1
    if let minimumSize {
      denominator = JPEGDecoder.scaleDenominator(
        width: decoder.width, height: decoder.height, targetWidth: max(1, minimumSize.width),
        targetHeight: max(1, minimumSize.height))
    }
    let scaledWidth = (decoder.width + denominator - 1) / denominator
    let scaledHeight = (decoder.height + denominator - 1) / denominator
    // libheif's peak passes before ours: once it returns, only its RGBA picture is left,
    // beside ours and the resampler's sums. Plus the file.
    let memory =
      max(
        decoder.decodingBytes,
        decoder.width * decoder.height * 4 + scaledWidth * scaledHeight * 3 + decoder.width * 28)
      + compressedBytes + Thumbnailer.fixedMemory
    try limits.checkMemory(path: decoder.path, bytes: memory)
    let pixels = try decoder.decode()
    let details = decoder.details()
    let fullSize = PixelSize(width: pixels.width, height: pixels.height)
    guard denominator > 1 else {
      var canvas = OrientedCanvas(storedWidth: pixels.width, storedHeight: pixels.height, orientation: 1)
      limits.rgbRows(of: pixels) { canvas.addRow($0) }
      return DecodedPhoto(image: canvas.finish(), fullSize: fullSize, scaleDenominator: 1, details: details)
    }
    var resampler = AreaResampler(
      sourceWidth: pixels.width, sourceHeight: pixels.height,
      targetWidth: (pixels.width + denominator - 1) / denominator,
      targetHeight: (pixels.height + denominator - 1) / denominator)
    limits.rgbRows(of: pixels) { resampler.addRow($0) }
    return DecodedPhoto(
      image: resampler.finish(), fullSize: fullSize, scaleDenominator: denominator, details: details)
  }
}
