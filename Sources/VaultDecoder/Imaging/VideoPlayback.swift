import CFFmpeg
import VaultCore

/// A stored video played frame by frame, in the decoder helper: FFmpeg reads its original
/// by range (the parent decrypts a 64 KiB chunk at a time, as the demuxer asks), so a video of
/// gigabytes is never held whole, nor written out. Each frame is scaled by libswscale
/// straight to the size the player asks for, then turned as the display matrix says.
final class VideoPlayback: MovingPicture {
  private let probe: VideoProbe
  private let frames: VideoFrames
  private let limits: Thumbnailer

  init(_ input: VideoInput, limits: Thumbnailer) throws {
    self.limits = limits
    probe = try VideoProbe(input, limits: limits)
    frames = try VideoFrames(probe, limits: limits)
  }

  var shownSize: PixelSize {
    ExifOrientation.swapsDimensions(probe.orientation)
      ? PixelSize(width: probe.height, height: probe.width)
      : PixelSize(width: probe.width, height: probe.height)
  }

  var durationMicroseconds: Int64? { probe.durationMicroseconds }

  func nextFrame(scaledTo size: (Int64) -> PixelSize?) throws -> MovingFrame? {
    // The time budget is a frame's: a stream built to stall the decoder ends playing.
    probe.input.startBudget(seconds: limits.videoTimeLimit)
    guard let picture = try frames.next() else { return nil }
    let time = frames.microseconds(of: picture) ?? 0
    guard let shown = size(time) else { return MovingFrame(microseconds: time, image: nil) }
    guard let copy = av_frame_clone(picture) else {
      throw VaultError.videoUnreadable(path: probe.path, reason: "out of memory")
    }
    let swaps = ExifOrientation.swapsDimensions(probe.orientation)
    let stored = swaps ? PixelSize(width: shown.height, height: shown.width) : shown
    let image = try VideoPicture(frame: copy).scaled(
      width: stored.width, height: stored.height, path: probe.path)
    return MovingFrame(
      microseconds: time, image: probe.orientation == 1 ? image : image.oriented(probe.orientation))
  }

  func seek(toMicroseconds microseconds: Int64) throws {
    probe.input.startBudget(seconds: limits.videoTimeLimit)
    let target = min(max(0, microseconds), probe.durationMicroseconds)
    // A container that cannot seek is read again from its start.
    if !frames.seek(toMicroseconds: target) { frames.seek(toMicroseconds: 0) }
  }
}
