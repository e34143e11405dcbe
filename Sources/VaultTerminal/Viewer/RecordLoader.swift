import VaultCore

/// The browser's loader by record, handed to the preloader's thread. `PhotoBrowser` is not
/// `Sendable` (it holds what the viewer chose and found), but
/// `originalImage(of:minimumSize:)` is documented safe to call from another thread: it
/// reads only what the browser was made with, and the space's loader opens the photo's
/// file anew on each call. This wrapper says so in one place instead of hiding the
/// browser from the checker.
struct RecordLoader: @unchecked Sendable {
  let browser: PhotoBrowser

  @Sendable func load(_ request: OriginalPreloader.Request) throws -> DecodedPhoto {
    try browser.originalImage(of: request.record, minimumSize: request.minimumSize)
  }
}
