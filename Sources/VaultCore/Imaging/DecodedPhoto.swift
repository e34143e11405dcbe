/// A photo decoded in memory to be shown: its pixels as shown (EXIF orientation applied),
/// at `1/scaleDenominator` of its full size. The pixels are wiped when the last reference
/// goes; copies of `image` share them, so keep this object alive while they are in use.
public final class DecodedPhoto: Sendable {
  /// The picture as shown, at the decoded scale.
  public let image: RGBImage
  /// The photo's full size as shown (after orientation).
  public let fullSize: PixelSize
  /// The DCT scale it was decoded at: 1, 2, 4 or 8 (always 1 for a PNG).
  public let scaleDenominator: Int
  /// What the photo's file says of when it was taken and by which camera.
  public let details: PhotoDetails

  package init(
    image: RGBImage, fullSize: PixelSize, scaleDenominator: Int, details: PhotoDetails = PhotoDetails()
  ) {
    self.image = image
    self.fullSize = fullSize
    self.scaleDenominator = scaleDenominator
    self.details = details
  }

  deinit {
    // In place, not through a mutable copy: that would wipe the copy and leave these.
    image.pixels.withUnsafeBufferPointer { pixels in
      Sodium.zero(UnsafeMutableRawPointer(mutating: pixels.baseAddress), count: pixels.count)
    }
  }
}
