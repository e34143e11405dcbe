import VaultCore

/// A video shown as a still: its representative picture (the one its thumbnail shows).
extension PhotoDecoder {
  /// Decodes the picture of `probe`'s video its thumbnail shows, scaled down (never up) to
  /// the least size that still covers `minimumSize` (as shown), turned by its display matrix.
  static func decodeVideo(_ probe: VideoProbe, minimumSize: PixelSize?, limits: Thumbnailer) throws
    -> DecodedPhoto
  {
    let swaps = ExifOrientation.swapsDimensions(probe.orientation)
    try limits.checkMemory(
      path: probe.path, bytes: probe.memoryNeeded(limits: limits) + probe.width * probe.height * 6)
    let picture = try limits.representativePicture(of: probe)
    var scale = 1.0
    if let minimumSize {
      let shown = swaps ? (picture.height, picture.width) : (picture.width, picture.height)
      scale = min(
        1, max(Double(minimumSize.width) / Double(shown.0), Double(minimumSize.height) / Double(shown.1)))
    }
    let width = max(1, Int((Double(picture.width) * scale).rounded(.up)))
    let height = max(1, Int((Double(picture.height) * scale).rounded(.up)))
    let image = try picture.scaled(width: width, height: height, path: probe.path).oriented(probe.orientation)
    return DecodedPhoto(
      image: image,
      fullSize: PixelSize(
        width: swaps ? picture.height : picture.width, height: swaps ? picture.width : picture.height),
      scaleDenominator: 1, details: probe.details)
  }
}
