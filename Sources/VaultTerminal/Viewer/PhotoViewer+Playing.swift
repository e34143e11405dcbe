import Foundation
import VaultCore

/// Videos played and animations animated on the photo page: the frames of a `Playback`
/// drawn where the photo shows, and a video's progress on the status line.
extension PhotoViewer {
  /// Keys while a video plays: space or Enter pauses and resumes, ← → go back or on 10
  /// seconds, q or Esc stop it (back to the still). Other keys do nothing meanwhile.
  func handlePlaying(_ key: Key, _ playback: Playback) {
    switch key {
    case .character(" "), .enter: playback.togglePause()
    case .left, .character("h"): playback.seek(by: -Self.seekSeconds)
    case .right, .character("l"): playback.seek(by: Self.seekSeconds)
    case .character("q"), .escape: stopPlaying()
    default: break
    }
  }

  static let seekSeconds: Int64 = 10

  /// Plays the page's video (Enter or space on it), or a Live Photo's motion (Enter only:
  /// space pages on, past the Live Photos a camera roll is full of).
  func playVideo(at index: Int, by key: Key) -> Bool {
    guard let photo = browser.photo(at: index), let video = Self.video(of: photo),
      key == .enter || photo.motion == nil
    else { return false }
    startPlayback(of: video, on: photo.record.id, isVideo: true)
    return true
  }

  /// What plays for `photo`: itself if it is a video, a Live Photo's motion, else nil.
  static func video(of photo: PhotoModel) -> PhotoRecord? {
    photo.record.format.isVideo ? photo.record : photo.motion
  }

  /// Starts an animated GIF or WebP of the page once, when it shows.
  func animateIfMoving(_ record: PhotoRecord) {
    guard record.format == .gif || record.format == .webp, playback?.photo != record.id,
      playbackTried != record.id
    else { return }
    startPlayback(of: record, on: record.id, isVideo: false)
  }

  /// Plays `record` on the page of `page` (a Live Photo's still, for its motion).
  private func startPlayback(of record: PhotoRecord, on page: BlobID, isVideo: Bool) {
    stopPlaying()
    playbackTried = page
    let loader = RecordLoader(browser: browser)
    let cancellation = PlaybackCancellation()
    playback = Playback(
      photo: page, open: { try loader.open(record, cancellation: cancellation) }, isVideo: isVideo,
      area: playingArea(), cancellation: cancellation)
  }

  func stopPlaying() {
    playback?.stop()
    playback = nil
  }

  /// The pixels a frame may fill: the photo's area of the screen.
  func playingArea() -> PixelSize {
    let size = terminal.size
    let area = photoArea(columns: size.columns, rows: size.rows)
    return PixelSize(width: area.columns * cell.width, height: area.rows * cell.height)
  }

  /// Stops what plays when its photo is no longer on the page.
  func followPlayback() {
    guard let playback else { return }
    if screen != .photo || showsHelp || pagePhoto != playback.photo { stopPlaying() }
  }

  /// Before a frame begins: takes the frame of what plays that is due now and sends its
  /// pixels, so that the frame that places it holds no upload (`PictureDrawing.upload`).
  func uploadPlayingFrame() {
    guard let playback, screen == .photo, !showsHelp, pagePhoto == playback.photo else { return }
    playback.fit(playingArea())
    guard let frame = playback.current().frame, let image = frame.image else { return }
    emit(drawing.upload(key: frameKey(playback.photo, frame, image)) { .photo(image) })
  }

  private func frameKey(_ photo: BlobID, _ frame: MovingFrame, _ image: RGBImage) -> PictureKey {
    .frame(photo, microseconds: frame.microseconds, width: image.width, height: image.height)
  }

  /// Draws the frame playing for `record` in `area` of the screen (the one
  /// `uploadPlayingFrame` took); false when none shows (not playing, or no frame decoded
  /// yet). A failure ends the playback, said on the status line.
  func drawPlayingFrame(_ record: PhotoRecord, columns: Int, rows: Int) -> Bool {
    guard let playback, playback.photo == record.id else { return false }
    let (frame, failure) = playback.onScreen()
    if let failure {
      stopPlaying()
      report(failure)
      return false
    }
    if frame == nil, playback.isFinished {
      // A still: the page is a photo's again (kitty sends its neighbours ahead).
      stopPlaying()
      return false
    }
    guard let frame, let image = frame.image else { return false }
    let view = Viewport(
      image: PixelSize(width: image.width, height: image.height), columns: columns, rows: rows, cell: cell
    ).placement
    emit(
      drawing.draw(
        key: frameKey(record.id, frame, image),
        source: PixelRect(x: 0, y: 0, width: image.width, height: image.height),
        column: view.column,
        row: view.row, columns: view.columns, rows: view.rows
      ) { .photo(image) })
    return true
  }

  /// The status line's words for a video or a Live Photo: its progress while it plays
  /// ("▶ 0:03 / 0:12"), else its kind, its (motion's) duration and how to play it.
  func videoStatus(_ photo: PhotoModel) -> String? {
    guard let video = Self.video(of: photo) else { return nil }
    let total = PhotoListing.clockDuration(Double(video.durationMicroseconds ?? 0) / 1e6)
    guard let playback, playback.photo == photo.record.id else {
      return "  \(photo.kind.rawValue) \(total)  Enter: play"
    }
    // At the end, the whole duration: the last frame's time falls short of it (0:02 of 0:03).
    let shown =
      playback.hasEnded ? total : PhotoListing.clockDuration(Double(playback.shownMicroseconds / 1_000_000))
    // ‖ rather than ⏸, which no font Debian installs by default has (drawn as a box).
    let mark = playback.isPaused ? "‖" : "▶"
    return "  \(mark) \(shown) / \(total)  ← →: 10 s  q: stop"
  }
}
