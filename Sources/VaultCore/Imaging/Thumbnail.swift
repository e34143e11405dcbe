/// A thumbnail made on import, and what decoding the photo told us about it.
public struct Thumbnail: Sendable {
  /// The thumbnail, JPEG-encoded, already turned by the EXIF orientation.
  public var jpeg: [UInt8]
  public var thumbnailWidth: Int
  public var thumbnailHeight: Int
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

  /// The helper makes thumbnails (VaultDecoder), so its memberwise initializer is the package's.
  package init(
    jpeg: [UInt8], thumbnailWidth: Int, thumbnailHeight: Int, width: Int, height: Int, orientation: Int,
    warning: String?, durationMicroseconds: Int64? = nil, codec: String? = nil
  ) {
    (self.jpeg, self.thumbnailWidth, self.thumbnailHeight) = (jpeg, thumbnailWidth, thumbnailHeight)
    (self.width, self.height, self.orientation, self.warning) = (width, height, orientation, warning)
    (self.durationMicroseconds, self.codec) = (durationMicroseconds, codec)
  }

  /// `record` with the video's duration and codec that made this thumbnail.
  package func videoFactsApplied(to record: PhotoRecord) -> PhotoRecord {
    var record = record
    (record.durationMicroseconds, record.codec) = (durationMicroseconds, codec)
    return record
  }
}
