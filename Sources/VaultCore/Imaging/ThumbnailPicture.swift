/// A thumbnail decoded and shrunk but not yet encoded, with what decoding the photo told
/// us: what a decoder helper hands back. The process that holds keys encodes it
/// (`Thumbnailer.encode`), so no byte a helper wrote ever reaches a decoder there.
public struct ThumbnailPicture: Sendable {
  /// The thumbnail's pixels, already turned by the EXIF orientation.
  public var image: RGBImage
  /// The photo's size as shown (after orientation).
  public var width: Int
  public var height: Int
  /// The EXIF orientation (1 when none, and for HEIC, whose decoder applies the
  /// file's rotation and mirroring itself).
  public var orientation: Int
  /// A non-fatal decoder complaint (e.g. premature end of data), if any.
  public var warning: String?
  /// A video's duration in microseconds and codec, from its container; nil for a still.
  public var durationMicroseconds: Int64? = nil
  public var codec: String? = nil

  package init(
    image: RGBImage, width: Int, height: Int, orientation: Int, warning: String? = nil,
    durationMicroseconds: Int64? = nil, codec: String? = nil
  ) {
    (self.image, self.width, self.height, self.orientation) = (image, width, height, orientation)
    (self.warning, self.durationMicroseconds, self.codec) = (warning, durationMicroseconds, codec)
  }
}

extension Thumbnailer {
  /// The thumbnail of `picture`, JPEG-encoded at `quality`; its pixels are wiped.
  public func encode(_ picture: ThumbnailPicture) throws -> Thumbnail {
    defer { picture.image.pixels.wipeShared() }
    return Thumbnail(
      jpeg: try JPEGEncoder.encode(picture.image, quality: quality), thumbnailWidth: picture.image.width,
      thumbnailHeight: picture.image.height, width: picture.width, height: picture.height,
      orientation: picture.orientation, warning: picture.warning,
      durationMicroseconds: picture.durationMicroseconds, codec: picture.codec)
  }
}
