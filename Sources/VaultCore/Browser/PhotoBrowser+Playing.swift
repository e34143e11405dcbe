/// Videos and animations played: their frames one by one (`MovingPicture`), decoded in a
/// decoder helper of their own (`playbackDecoders`), never in this process.
extension PhotoBrowser {
  /// The video or animation the photo `record` stands for, opened to play in a helper; nil
  /// for a still. The helper reads a video by range through the data source (never
  /// decrypted whole); a GIF or WebP, which its libraries decode from memory only, is sent
  /// whole if it is within `PhotoImporter.inMemoryFileLimit` (as an import). `cancellation` ends its
  /// requests from another thread (opening it too). Safe to call from another thread, as
  /// the loaders are.
  public func movingPicture(
    of record: PhotoRecord, cancellation: PlaybackCancellation = PlaybackCancellation()
  )
    throws -> MovingPicture?
  {
    let request = DecoderRequest(
      wants: [], thumbnailer: thumbnailer, format: record.format, name: record.name, size: record.bytes,
      delivery: .bytes)
    switch record.format {
    case .mp4, .mov:
      guard let ranges = dataSource.originalRanges else { return nil }
      return try DecoderPlayback.open(
        request, input: .ranges(ranges(record, false)), pool: playbackDecoders, name: record.name,
        cancellation: cancellation)
    case .gif, .webp:
      guard record.bytes <= Int64(PhotoImporter.inMemoryFileLimit) else {
        throw VaultError.decodeFailed(
          path: record.name,
          reason: "a file of more than \(PhotoImporter.inMemoryFileLimit >> 20) MiB is not animated")
      }
      let plaintext = try originalBytes(of: record)
      return try withExtendedLifetime(plaintext) {
        try DecoderPlayback.open(
          request, input: .bytes(plaintext.pinned), pool: playbackDecoders, name: record.name,
          cancellation: cancellation)
      }
    case .jpeg, .png, .heic, .avif:
      return nil
    }
  }
}
