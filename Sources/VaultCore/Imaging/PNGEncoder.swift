import CVaultImaging

/// Encodes pictures as PNG through libpng, quickly rather than small (the Average filter, zlib's
/// fastest level): for kitty, which takes PNG (`f=100`) and so is sent half the bytes of a
/// photo's raw pixels.
public enum PNGEncoder {
  /// The PNG of 8-bit pixels, `channels` (3: RGB, 4: RGBA) a pixel, rows packed; nil when
  /// libpng fails. The result holds what the pixels compressed to: wipe it once used.
  public static func encode(_ pixels: [UInt8], width: Int, height: Int, channels: Int) -> [UInt8]? {
    precondition(width > 0 && height > 0 && (channels == 3 || channels == 4))
    precondition(pixels.count == width * height * channels)
    let capacity = vault_png_encoded_capacity(UInt32(width), UInt32(height), Int32(channels))
    // Written in place and cut to its length: never grown, so never copied and freed unwiped.
    var output = [UInt8](repeating: 0, count: capacity)
    let length = pixels.withUnsafeBufferPointer { source in
      output.withUnsafeMutableBufferPointer { target in
        vault_png_encode(
          source.baseAddress, UInt32(width), UInt32(height), Int32(channels), target.baseAddress, capacity)
      }
    }
    guard length > 0 else {
      output.wipe()
      return nil
    }
    // Shrinking in place keeps the buffer; the bytes past the end are wiped first.
    output.withUnsafeMutableBufferPointer { buffer in
      (buffer.baseAddress! + length).update(repeating: 0, count: capacity - length)
    }
    output.removeLast(output.count - length)
    return output
  }

  /// An RGB picture's PNG (see `encode`).
  public static func encode(_ image: RGBImage) -> [UInt8]? {
    encode(image.pixels, width: image.width, height: image.height, channels: 3)
  }
}
