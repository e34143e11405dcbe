import VaultCore

/// The browser's loaders by record, handed to the viewer's other threads (the preloader's
/// and a playback's). `PhotoBrowser` is not `Sendable` (it holds what the viewer chose and
/// found), but `originalImage(of:minimumSize:)` and `movingPicture(of:cancellation:)` are
/// documented safe to call from another thread: they read only what the browser was made
/// with, and the space's loader opens the photo's file anew on each call. This wrapper
/// says so in one place instead of hiding the browser from the checker.
struct RecordLoader: @unchecked Sendable {
  let browser: PhotoBrowser

  @Sendable func load(_ request: OriginalPreloader.Request) throws -> DecodedPhoto {
    try browser.originalImage(of: request.record, minimumSize: request.minimumSize)
  }

  /// Opens a photo's video or animation, on the playback's thread.
  func open(_ record: PhotoRecord, cancellation: PlaybackCancellation) throws -> MovingPicture? {
    try browser.movingPicture(of: record, cancellation: cancellation)
  }
}
