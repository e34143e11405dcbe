import VaultCore

/// An animated GIF or WebP played frame by frame: the file is held (these libraries decode
/// from memory only, and a file over `FrameDecoders.fileSizeLimit` is never opened), with
/// one canvas and, for a GIF frame that asks to be undone, a copy of it.
final class FramePlayback: MovingPicture {
  private let next: () throws -> (canvas: DecodedFrame, milliseconds: Int)?
  private let rewind: () -> Void
  private let limits: Thumbnailer
  let shownSize: PixelSize
  /// The original's bytes, decrypted, which the decoder reads.
  private let plaintext: PlaintextBytes
  /// When the next frame starts, in microseconds from the start.
  private var time: Int64 = 0

  /// Nil when `plaintext` is a still (one frame): there is nothing to play.
  init?(_ plaintext: PlaintextBytes, format: ImageFormat, name: String, limits: Thumbnailer) throws {
    let decoder = try FrameDecoders.open(plaintext.pinned, name: name, format: format)
    guard decoder.isAnimated else { return nil }
    try limits.checkFrames(decoder)
    // The decoder's, a copy of the canvas, and what a frame is scaled to at most.
    try limits.checkMemory(
      path: name,
      bytes: decoder.decodingBytes + decoder.width * decoder.height * 7 + Thumbnailer.fixedMemory)
    switch decoder {
    case let gif as GIFDecoder:
      let animation = GIFAnimation(gif)
      (next, rewind) = (animation.next, animation.rewind)
    case let webp as WebPDecoder:
      let animation = try WebPAnimation(webp)
      (next, rewind) = (animation.next, animation.rewind)
    default:
      return nil
    }
    self.plaintext = plaintext
    self.limits = limits
    shownSize = PixelSize(width: decoder.width, height: decoder.height)
  }

  var durationMicroseconds: Int64? { nil }

  /// The frames over and over, their times going on from one loop to the next: the first
  /// frame's second showing comes when the last one's delay is over. Nil only for an
  /// animation with no frame to show.
  func nextFrame(scaledTo size: (Int64) -> PixelSize?) throws -> MovingFrame? {
    guard let (canvas, milliseconds) = try next() ?? startOver() else { return nil }
    let start = time
    time += Int64(milliseconds) * 1000
    guard let target = size(start) else { return MovingFrame(microseconds: start, image: nil) }
    var resampler = AreaResampler(
      sourceWidth: canvas.width, sourceHeight: canvas.height, targetWidth: target.width,
      targetHeight: target.height)
    limits.rgbRows(of: canvas) { resampler.addRow($0) }
    return MovingFrame(microseconds: start, image: resampler.finish())
  }

  /// The first frame again, after the last (none when not even one frame decodes).
  private func startOver() throws -> (canvas: DecodedFrame, milliseconds: Int)? {
    guard time > 0 else { return nil }
    rewind()
    return try next()
  }

  func seek(toMicroseconds microseconds: Int64) throws {
    // Only the start: an animation's frames are known by playing them.
    rewind()
    time = 0
  }
}
