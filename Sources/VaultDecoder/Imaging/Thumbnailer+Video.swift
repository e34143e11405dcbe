import VaultCore

/// Thumbnails of videos: the representative picture (`VideoStill`), scaled by libswscale
/// to the size a still's thumbnail has, turned as the display matrix says, JPEG-encoded.
extension Thumbnailer {
  /// Reads a video's header from `input`, checking its size, duration and memory.
  func openedVideo(_ input: VideoInput) throws -> OpenedImage {
    try opened(.video(VideoProbe(input, limits: self)))
  }

  /// The thumbnail of a probed video, decoded within the time budget.
  func videoThumbnail(_ probe: VideoProbe) throws -> ThumbnailPicture {
    let picture = try representativePicture(of: probe)
    let target = targetSize(width: picture.width, height: picture.height)
    let image = try picture.scaled(width: target.width, height: target.height, path: probe.path)
    var thumbnail = finish(
      image, width: picture.width, height: picture.height, orientation: probe.orientation,
      warning: Self.cutShortWarning(probe))
    (thumbnail.durationMicroseconds, thumbnail.codec) = (probe.durationMicroseconds, probe.codec)
    return thumbnail
  }

  /// What a video cut short lacks ("the file is cut short: only 0:07 of 0:20 decodes"), or
  /// nil when the file holds its whole duration.
  static func cutShortWarning(_ probe: VideoProbe) -> String? {
    guard probe.durationMicroseconds < probe.declaredMicroseconds else { return nil }
    let (held, declared) = (
      Double(probe.durationMicroseconds) / 1e6, Double(probe.declaredMicroseconds) / 1e6
    )
    return
      "the file is cut short: only \(ClockDuration.text(held)) of \(ClockDuration.text(declared)) decodes"
  }

  /// The picture of a probed video to show, decoded within the time budget.
  func representativePicture(of probe: VideoProbe) throws -> VideoPicture {
    probe.input.startBudget(seconds: videoTimeLimit)
    return try VideoStill.picture(of: VideoFrames(probe, limits: self))
  }
}
