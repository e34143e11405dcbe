/// A rectangle of an image in its pixels, from its top-left corner: what part of a
/// photo to draw (a kitty placement's source rectangle, a crop before chafa).
public struct PixelRect: Equatable, Sendable {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }
}
