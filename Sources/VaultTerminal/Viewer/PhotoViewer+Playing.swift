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

  /// Plays the page's photo if it is a video (Enter or space on it).
  func playVideo(at index: Int) -> Bool {
    guard let photo = browser.photo(at: index), photo.record.format.isVideo else { return false }
    startPlayback(of: photo.record, isVideo: true)
    return true
  }

  /// Starts an animated GIF or WebP of the page once, when it shows.
  func animateIfMoving(_ record: PhotoRecord) {
    guard record.format == .gif || record.format == .webp, playback?.photo != record.id,
      playbackTried != record.id
    else { return }
    startPlayback(of: record, isVideo: false)
  }

  private func startPlayback(of record: PhotoRecord, isVideo: Bool) {
    stopPlaying()
    playbackTried = record.id
    let loader = RecordLoader(browser: browser)
    let cancellation = PlaybackCancellation()
    playback = Playback(
      photo: record.id, open: { try loader.open(record, cancellation: cancellation) }, isVideo: isVideo,
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

  /// Draws the frame playing for `record` in `area` of the screen; false when none shows
  /// (not playing, or no frame decoded yet). A failure ends the playback, said on the status line.
  func drawPlayingFrame(_ record: PhotoRecord, columns: Int, rows: Int) -> Bool {
    guard let playback, playback.photo == record.id else { return false }
    playback.fit(playingArea())
    let (frame, failure) = playback.current()
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
    let key = PictureKey.frame(
      record.id, microseconds: frame.microseconds, width: image.width, height: image.height)
    emit(
      drawing.draw(
        key: key, source: PixelRect(x: 0, y: 0, width: image.width, height: image.height),
        column: view.column,
        row: view.row, columns: view.columns, rows: view.rows
      ) { .photo(image) })
    return true
  }

  /// The status line's words for a video: its progress while it plays ("▶ 0:03 / 0:12"),
  /// else its kind and duration and how to play it.
  func videoStatus(_ record: PhotoRecord) -> String? {
    guard record.format.isVideo else { return nil }
    let total = PhotoListing.clockDuration(Double(record.durationMicroseconds ?? 0) / 1e6)
    guard let playback, playback.photo == record.id else {
      return "  \(record.kind.rawValue) \(total)  Enter: play"
    }
    // At the end, the whole duration: the last frame's time falls short of it (0:02 of 0:03).
    let shown =
      playback.hasEnded ? total : PhotoListing.clockDuration(Double(playback.shownMicroseconds / 1_000_000))
    // ‖ rather than ⏸, which no font Debian installs by default has (drawn as a box).
    let mark = playback.isPaused ? "‖" : "▶"
    return "  \(mark) \(shown) / \(total)  ← →: 10 s  q: stop"
  }
}
