import VaultCore

/// One frame of a GIF, WebP or AVIF, decoded whole: 8-bit RGBA rows with no padding, the
/// colours not multiplied by alpha. It may be a decrypted photo's, so it is wiped before
/// it is freed.
final class DecodedFrame {
  let width: Int
  let height: Int
  let pixels: UnsafeMutableBufferPointer<UInt8>

  /// A frame of `width`×`height` pixels, all transparent until written.
  init(width: Int, height: Int) {
    self.width = width
    self.height = height
    pixels = .allocate(capacity: max(1, width * height * 4))
    pixels.initialize(repeating: 0)
  }

  deinit {
    Sodium.zero(pixels.baseAddress, count: pixels.count)
    pixels.deallocate()
  }

  /// Row `y` (0 at the top), `width * 4` bytes.
  func row(_ y: Int) -> UnsafeMutablePointer<UInt8> {
    precondition(y >= 0 && y < height)
    return pixels.baseAddress! + y * width * 4
  }
}
