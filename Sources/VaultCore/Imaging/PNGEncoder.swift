import CVaultImaging

/// Encodes pictures as PNG through libpng, quickly rather than small (one filter, zlib's
/// fastest level): for kitty, which takes PNG (`f=100`) and so is sent half the bytes of a
/// photo's raw pixels.
public enum PNGEncoder {
  /// The filter every row gets. For a photo shrunk to the screen, `average` predicts its
  /// noise best: 1.24 bytes a pixel against `sub`'s 1.31 (1.42 against 1.55 for a busier
  /// one), in the same time (Paeth 1.31, Up 1.31; zlib level 1 without run-length matching
  /// 1.47 and slower). For flat areas and text (the grid), `sub` is smaller: 0.55 bytes a
  /// pixel against 0.71.
  public enum Filter {
    case sub, average
  }

  /// The PNG of 8-bit pixels, `channels` (3: RGB, 4: RGBA) a pixel, rows packed; nil when
  /// libpng fails. The result holds what the pixels compressed to: wipe it once used.
  public static func encode(_ pixels: [UInt8], width: Int, height: Int, channels: Int, filter: Filter = .sub)
    -> [UInt8]?
  {
    precondition(width > 0 && height > 0 && (channels == 3 || channels == 4))
    precondition(pixels.count == width * height * channels)
    let capacity = vault_png_encoded_capacity(UInt32(width), UInt32(height), Int32(channels))
    // Written in place and cut to its length: never grown, so never copied and freed unwiped.
    var output = [UInt8](repeating: 0, count: capacity)
    let length = pixels.withUnsafeBufferPointer { source in
      output.withUnsafeMutableBufferPointer { target in
        vault_png_encode(
          source.baseAddress, UInt32(width), UInt32(height), Int32(channels),
          filter == .sub ? VAULT_PNG_FILTER_SUB : VAULT_PNG_FILTER_AVERAGE, target.baseAddress, capacity)
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
