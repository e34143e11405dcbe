/// A video or an animation read frame by frame for playing: only the frame being decoded
/// (and, for an animation, its canvas) is held, never the whole file's pictures; a video's
/// original is read by range, never decrypted whole. Not thread-safe: the player's
/// decoding thread owns it.
public protocol MovingPicture: AnyObject {
  /// The size of a frame as shown (turned as the video's display matrix says).
  var shownSize: PixelSize { get }
  /// How long it plays, in microseconds; nil for an animation, which loops and whose
  /// length is known only once played through.
  var durationMicroseconds: Int64? { get }
  /// Decodes the next frame. `size` is asked for with the frame's time (microseconds from
  /// the start) and gives the size to scale it to (within `shownSize`'s proportions), or nil
  /// to drop it unscaled (a player drops a frame that is late). Nil at the end.
  func nextFrame(scaledTo size: (Int64) -> PixelSize?) throws -> MovingFrame?
  /// Goes back to the start, or for a video to the keyframe at or before `microseconds`,
  /// so that the next frames lead up to it.
  func seek(toMicroseconds microseconds: Int64) throws
}

/// A frame decoded for playing: its time from the start and its pixels, as shown (nil when
/// it was dropped).
public struct MovingFrame: Sendable {
  public var microseconds: Int64
  public var image: RGBImage?

  public init(microseconds: Int64, image: RGBImage?) {
    (self.microseconds, self.image) = (microseconds, image)
  }
}

extension PixelSize {
  /// What a frame of this size is scaled to so that it fits `area` whole, keeping its
  /// proportions, never larger than it is.
  public func fitted(in area: PixelSize) -> PixelSize {
    guard width > 0, height > 0 else { return PixelSize(width: 1, height: 1) }
    let scale = min(1, Double(area.width) / Double(width), Double(area.height) / Double(height))
    return PixelSize(
      width: max(1, Int((Double(width) * scale).rounded())),
      height: max(1, Int((Double(height) * scale).rounded())))
  }
}
