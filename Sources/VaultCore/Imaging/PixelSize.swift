/// A width and a height in pixels: an image's, a decode's, or one terminal cell's.
public struct PixelSize: Equatable, Sendable {
  public var width: Int
  public var height: Int

  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }
}
