/// An 8-bit RGB picture in memory, row by row with no padding.
public struct RGBImage: Equatable, Sendable {
  public var width: Int
  public var height: Int
  public var pixels: [UInt8]

  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(pixels.count == width * height * 3)
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// The picture as it should be shown for an EXIF orientation (1...8).
  public func oriented(_ orientation: Int) -> RGBImage {
    guard (2...8).contains(orientation) else { return self }
    let swaps = ExifOrientation.swapsDimensions(orientation)
    let outWidth = swaps ? height : width
    let outHeight = swaps ? width : height
    var output = [UInt8](repeating: 0, count: pixels.count)
    for y in 0..<outHeight {
      for x in 0..<outWidth {
        let source: (Int, Int)
        switch orientation {
        case 2: source = (width - 1 - x, y)
        case 3: source = (width - 1 - x, height - 1 - y)
        case 4: source = (x, height - 1 - y)
        case 5: source = (y, x)
        case 6: source = (y, height - 1 - x)
        case 7: source = (width - 1 - y, height - 1 - x)
        default: source = (width - 1 - y, x)  // 8
        }
        let from = (source.1 * width + source.0) * 3
        let to = (y * outWidth + x) * 3
        output[to] = pixels[from]
        output[to + 1] = pixels[from + 1]
        output[to + 2] = pixels[from + 2]
      }
    }
    return RGBImage(width: outWidth, height: outHeight, pixels: output)
  }
}
