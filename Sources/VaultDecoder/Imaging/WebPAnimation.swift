import CWebP
import VaultCore

/// An animated WebP's frames in order, composed on its canvas by libwebp's animation
/// decoder (which holds the canvas and the frame before it), each with how long it shows.
final class WebPAnimation {
  private let decoder: WebPDecoder
  private let animation: OpaquePointer
  private let canvas: DecodedFrame
  /// When the last frame ended, in milliseconds from the start.
  private var ended: Int32 = 0

  init(_ decoder: WebPDecoder) throws {
    self.decoder = decoder
    var options = WebPAnimDecoderOptions()
    guard WebPAnimDecoderOptionsInit(&options) != 0 else {
      throw VaultError.decodeFailed(path: decoder.path, reason: "libwebp version mismatch")
    }
    options.color_mode = MODE_RGBA
    options.use_threads = 0
    var data = WebPData(bytes: decoder.pinned.baseAddress, size: decoder.pinned.count)
    guard let animation = WebPAnimDecoderNew(&data, &options) else {
      throw VaultError.decodeFailed(path: decoder.path, reason: "damaged WebP: its animation cannot be read")
    }
    self.animation = animation
    canvas = DecodedFrame(width: decoder.width, height: decoder.height)
  }

  deinit {
    WebPAnimDecoderDelete(animation)
  }

  /// The canvas with the next frame composed, and how long it shows in milliseconds (a
  /// duration under 20 ms counts as 100, as browsers do); nil after the last frame.
  func next() throws -> (canvas: DecodedFrame, milliseconds: Int)? {
    guard WebPAnimDecoderHasMoreFrames(animation) != 0 else { return nil }
    var pixels: UnsafeMutablePointer<UInt8>?
    var timestamp: Int32 = 0
    guard WebPAnimDecoderGetNext(animation, &pixels, &timestamp) != 0, let pixels else {
      throw VaultError.decodeFailed(path: decoder.path, reason: "damaged WebP: a frame cannot be decoded")
    }
    canvas.pixels.baseAddress!.update(from: pixels, count: canvas.pixels.count)
    let duration = Int(timestamp) - Int(ended)
    ended = timestamp
    return (canvas, duration < 20 ? 100 : duration)
  }

  /// Starts again from the first frame.
  func rewind() {
    WebPAnimDecoderReset(animation)
    ended = 0
  }
}
