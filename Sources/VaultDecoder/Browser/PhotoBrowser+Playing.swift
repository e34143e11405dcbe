import VaultCore

/// Videos and animations played: their frames one by one (`MovingPicture`).
extension PhotoBrowser {
  /// The video or animation the photo `record` stands for, opened to play; nil for a
  /// still. A video is read by range through the data source (never decrypted whole); a GIF
  /// or WebP, which its libraries decode from memory only, is held if it is within
  /// `FrameDecoders.fileSizeLimit`. Safe to call from another thread, as the loaders are.
  public func movingPicture(of record: PhotoRecord) throws -> MovingPicture? {
    switch record.format {
    case .mp4, .mov:
      guard let ranges = dataSource.originalRanges else { return nil }
      return try VideoPlayback(ranges(record), name: record.name, limits: thumbnailer)
    case .gif, .webp:
      guard record.bytes <= Int64(FrameDecoders.fileSizeLimit) else {
        throw VaultError.decodeFailed(
          path: record.name,
          reason: "a file of more than \(FrameDecoders.fileSizeLimit >> 20) MiB is not animated")
      }
      return try FramePlayback(
        originalBytes(of: record), format: record.format, name: record.name, limits: thumbnailer)
    case .jpeg, .png, .heic, .avif:
      return nil
    }
  }
}
