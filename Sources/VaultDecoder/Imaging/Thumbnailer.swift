import VaultCore

/// How the thumbnailer decodes: in the decoder helper only.
extension Thumbnailer {
  /// Opens `path` once (a regular file only) and makes its thumbnail from that descriptor.
  public func makeThumbnail(path: String, format: ImageFormat) throws -> Thumbnail {
    try makeThumbnail(open(SourceFile(path: path), format: format))
  }

  /// The same from a picture held in memory (a decrypted original); `name` stands for it
  /// in errors.
  public func makeThumbnail(bytes: [UInt8], name: String, format: ImageFormat) throws -> Thumbnail {
    try makeThumbnail(open(PinnedBytes(bytes), name: name, format: format))
  }

  /// Reads the header of a file through its descriptor, and checks its size and memory.
  func open(_ file: SourceFile, format: ImageFormat) throws -> OpenedImage {
    switch format {
    case .jpeg: return try opened(.jpeg(JPEGDecoder(file: file)))
    case .png: return try opened(.png(PNGDecoder(file: file)))
    case .heic: return try opened(.heif(HEIFDecoder(file: file)))
    case .gif, .webp, .avif:
      return try opened(.frames(FrameDecoders.open(file, format: format)))
    case .mp4, .mov: return try openedVideo(VideoInput(.file(file), path: file.path))
    }
  }

  /// Reads the header of a picture in memory, and checks its size and memory.
  func open(_ bytes: PinnedBytes, name: String, format: ImageFormat) throws -> OpenedImage {
    switch format {
    case .jpeg: return try opened(.jpeg(JPEGDecoder(pinned: bytes, name: name)))
    case .png: return try opened(.png(PNGDecoder(pinned: bytes, name: name)))
    case .heic: return try opened(.heif(HEIFDecoder(pinned: bytes, name: name)))
    case .gif, .webp, .avif: return try opened(.frames(FrameDecoders.open(bytes, name: name, format: format)))
    case .mp4, .mov: return try openedVideo(VideoInput(.memory(bytes), path: name))
    }
  }

  /// Decodes an opened picture into its thumbnail.
  func makeThumbnail(_ image: OpenedImage) throws -> Thumbnail {
    try encode(makeThumbnailPicture(image))
  }

  /// Decodes an opened picture into its thumbnail's pixels (a helper's half: the parent
  /// encodes them).
  func makeThumbnailPicture(_ image: OpenedImage) throws -> ThumbnailPicture {
    switch image.decoder {
    case .jpeg(let decoder): return try jpegThumbnail(decoder, memoryLimit: image.memoryNeeded)
    case .png(let decoder): return try pngThumbnail(decoder)
    case .heif(let decoder): return try heifThumbnail(decoder)
    case .frames(let decoder): return try frameThumbnail(decoder)
    case .video(let probe): return try videoThumbnail(probe)
    }
  }

  func opened(_ decoder: OpenedImage.Decoder) throws -> OpenedImage {
    let memory: Int
    switch decoder {
    case .jpeg(let jpeg):
      try checkPixelCount(path: jpeg.path, width: jpeg.width, height: jpeg.height)
      let target = targetSize(width: jpeg.width, height: jpeg.height)
      let denominator = JPEGDecoder.scaleDenominator(
        width: jpeg.width, height: jpeg.height, targetWidth: target.width, targetHeight: target.height)
      let scaledWidth = (jpeg.width + denominator - 1) / denominator
      // libjpeg's whole-picture coefficients (progressive and multi-scan pictures), its
      // working rows (counted at full width and generously), then ours: 16 RGB rows, the
      // resampler's two rows of Float sums and a CMYK row.
      memory =
        jpeg.coefficientBytes + jpeg.width * jpeg.components * 48 + scaledWidth * (48 + 24 + 4)
        + Self.fixedMemory
      try checkMemory(path: jpeg.path, bytes: memory)
    case .png(let png):
      try checkPixelCount(path: png.path, width: png.width, height: png.height)
      // libpng's rows (up to 8 bytes a pixel, three of them, and a row of the last pass),
      // then ours: 16 RGBA rows, an RGB row, the resampler's sums, and the whole picture
      // when it is assembled.
      var bytes = png.width * (3 * 8 + 4 + 64 + 3 + 24) + Self.fixedMemory
      if png.isInterlaced && !lastPassOnly(png) { bytes += png.width * png.height * 4 + png.height * 8 }
      memory = bytes
      try checkMemory(path: png.path, bytes: memory)
    case .heif(let heif):
      try checkPixelCount(path: heif.path, width: heif.width, height: heif.height)
      // libheif decodes only the whole picture (no reduced decode like JPEG's DCT
      // scaling); then ours: an RGB row, the resampler's sums and weights.
      memory = heif.decodingBytes + heif.width * (3 + 24 + 4) + Self.fixedMemory
      try checkMemory(path: heif.path, bytes: memory)
    case .frames(let frames):
      try checkFrames(frames)
      // The decoder's, then ours: an RGB row, the resampler's sums and weights.
      memory = frames.decodingBytes + frames.width * (3 + 24 + 4) + Self.fixedMemory
      try checkMemory(path: frames.path, bytes: memory)
    case .video(let probe):
      // The probe checked its size and memory from the header.
      memory = probe.memoryNeeded(limits: self)
    }
    return OpenedImage(decoder: decoder, memoryNeeded: memory)
  }

  /// Whether a PNG is shrunk from its last Adam7 pass instead of being assembled whole:
  /// assembling a large interlaced picture takes 4 bytes a pixel, and when it shrinks at
  /// least 2× anyway, its last pass (every odd row, full width) is enough.
  private func lastPassOnly(_ decoder: PNGDecoder) -> Bool {
    let target = targetSize(width: decoder.width, height: decoder.height)
    return decoder.isInterlaced && decoder.width * decoder.height > wholeInterlacedPixelLimit
      && target.height * 2 <= decoder.height
  }

  /// The thumbnail size for a picture, keeping its aspect and never enlarging it.
  public func targetSize(width: Int, height: Int) -> (width: Int, height: Int) {
    let long = max(width, height)
    guard long > longSide else { return (width, height) }
    let scale = Double(longSide) / Double(long)
    return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
  }

  func checkPixelCount(path: String, width: Int, height: Int) throws {
    guard width > 0, height > 0 else {
      throw VaultError.decodeFailed(path: path, reason: "image has no pixels")
    }
    if width * height > pixelLimit {
      throw VaultError.imageTooLarge(path: path, width: width, height: height, limit: pixelLimit)
    }
  }

  private func jpegThumbnail(_ decoder: JPEGDecoder, memoryLimit: Int) throws -> ThumbnailPicture {
    let target = targetSize(width: decoder.width, height: decoder.height)
    let denominator = JPEGDecoder.scaleDenominator(
      width: decoder.width, height: decoder.height, targetWidth: target.width, targetHeight: target.height)
    let scaledWidth = (decoder.width + denominator - 1) / denominator
    let scaledHeight = (decoder.height + denominator - 1) / denominator
    var resampler = AreaResampler(
      sourceWidth: scaledWidth, sourceHeight: scaledHeight, targetWidth: target.width,
      targetHeight: target.height)
    let orientation = decoder.orientation()
    let shrinksFurther = target.width < scaledWidth || target.height < scaledHeight
    _ = try decoder.decode(
      scaleDenominator: denominator, memoryLimit: memoryLimit, shrinksFurther: shrinksFurther
    ) { row in
      resampler.addRow(row)
    }
    return finish(
      resampler.finish(), width: decoder.width, height: decoder.height, orientation: orientation,
      warning: decoder.warning)
  }

  private func pngThumbnail(_ decoder: PNGDecoder) throws -> ThumbnailPicture {
    let target = targetSize(width: decoder.width, height: decoder.height)
    let lastPassOnly = self.lastPassOnly(decoder)
    var resampler = AreaResampler(
      sourceWidth: decoder.width, sourceHeight: lastPassOnly ? decoder.height / 2 : decoder.height,
      targetWidth: target.width, targetHeight: target.height)
    var rgb = [UInt8](repeating: 0, count: decoder.width * 3)
    defer { rgb.wipe() }
    let width = decoder.width
    try decoder.decode(lastPassOnly: lastPassOnly) { rgba in
      composite(rgba, width: width, into: &rgb)
      rgb.withUnsafeBufferPointer { resampler.addRow($0.baseAddress!) }
    }
    return finish(
      resampler.finish(), width: decoder.width, height: decoder.height, orientation: 1, warning: nil)
  }

  private func heifThumbnail(_ decoder: HEIFDecoder) throws -> ThumbnailPicture {
    let pixels = try decoder.decode()
    let target = targetSize(width: pixels.width, height: pixels.height)
    var resampler = AreaResampler(
      sourceWidth: pixels.width, sourceHeight: pixels.height, targetWidth: target.width,
      targetHeight: target.height)
    rgbRows(of: pixels) { resampler.addRow($0) }
    return finish(
      resampler.finish(), width: pixels.width, height: pixels.height, orientation: 1, warning: nil)
  }

  /// Hands each row of a picture libheif decoded to `consume` as RGB, transparency
  /// composited over `background`.
  func rgbRows(of pixels: HEIFPixels, consume: (UnsafePointer<UInt8>) -> Void) {
    guard pixels.channels == 4 else {
      for y in 0..<pixels.height { consume(pixels.row(y)) }
      return
    }
    var rgb = [UInt8](repeating: 0, count: pixels.width * 3)
    defer { rgb.wipe() }
    for y in 0..<pixels.height {
      composite(pixels.row(y), width: pixels.width, premultiplied: pixels.isPremultiplied, into: &rgb)
      rgb.withUnsafeBufferPointer { consume($0.baseAddress!) }
    }
  }

  /// Composites a row of `width` RGBA pixels over `background` into `rgb`; `premultiplied`
  /// colours are already multiplied by their alpha.
  func composite(
    _ rgba: UnsafePointer<UInt8>, width: Int, premultiplied: Bool = false, into rgb: inout [UInt8]
  ) {
    let background = UInt32(self.background)
    rgb.withUnsafeMutableBufferPointer { out in
      for x in 0..<width {
        let alpha = UInt32(rgba[x * 4 + 3])
        for channel in 0..<3 {
          let value = UInt32(rgba[x * 4 + channel])
          let shown =
            premultiplied
            ? min(255, value + (background * (255 - alpha) + 127) / 255)
            : (value * alpha + background * (255 - alpha) + 127) / 255
          out[x * 3 + channel] = UInt8(shown)
        }
      }
    }
  }

  func finish(_ image: RGBImage, width: Int, height: Int, orientation: Int, warning: String?)
    -> ThumbnailPicture
  {
    let swaps = ExifOrientation.swapsDimensions(orientation)
    return ThumbnailPicture(
      image: image.oriented(orientation), width: swaps ? height : width, height: swaps ? width : height,
      orientation: orientation, warning: warning)
  }
}

/// A picture whose header is read, with the memory that decoding it into a thumbnail
/// takes at most.
final class OpenedImage {
  enum Decoder {
    case jpeg(JPEGDecoder)
    case png(PNGDecoder)
    case heif(HEIFDecoder)
    /// A GIF, WebP or AVIF.
    case frames(FrameDecoder)
    case video(VideoProbe)
  }

  let decoder: Decoder
  let memoryNeeded: Int

  init(decoder: Decoder, memoryNeeded: Int) {
    self.decoder = decoder
    self.memoryNeeded = memoryNeeded
  }
}
