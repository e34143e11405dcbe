import VaultCore

/// GIF, WebP and AVIF originals decoded for showing: the first frame whole, then averaged
/// down as a JPEG would be scaled when a smaller size is asked for, then turned as shown.
extension PhotoDecoder {
  static func decodeFrames(
    _ decoder: FrameDecoder, compressedBytes: Int, minimumSize: PixelSize?, limits: Thumbnailer
  ) throws -> DecodedPhoto {
    try limits.checkFrames(decoder)
    let denominator = scaleDenominator(
      width: decoder.width, height: decoder.height, orientation: decoder.orientation, atLeast: minimumSize)
    let swaps = ExifOrientation.swapsDimensions(decoder.orientation)
    let scaledWidth = (decoder.width + denominator - 1) / denominator
    let scaledHeight = (decoder.height + denominator - 1) / denominator
    // The decoder's, ours at the scale shown twice (scaled, then turned), the resampler's
    // sums, and the file.
    let memory =
      decoder.decodingBytes + scaledWidth * scaledHeight * 6 + decoder.width * 28 + compressedBytes
      + Thumbnailer.fixedMemory
    try limits.checkMemory(path: decoder.path, bytes: memory)
    let frame = try decoder.decodeFirstFrame()
    var resampler = AreaResampler(
      sourceWidth: frame.width, sourceHeight: frame.height, targetWidth: scaledWidth,
      targetHeight: scaledHeight)
    limits.rgbRows(of: frame) { resampler.addRow($0) }
    var scaled = resampler.finish()
    let shown = scaled.oriented(decoder.orientation)
    if decoder.orientation != 1 { scaled.pixels.wipe() }
    return DecodedPhoto(
      image: shown,
      fullSize: PixelSize(
        width: swaps ? decoder.height : decoder.width, height: swaps ? decoder.width : decoder.height),
      scaleDenominator: denominator, details: decoder.details())
  }
}
