// Stand-in for the issue-10 contract's PixelSize and PixelRect, which the viewport part
// defines with Viewport; the terminal part needs them to compile on its own. Drop this file
// when both parts meet.

/// A size in pixels.
public struct PixelSize: Equatable, Sendable {
  public var width: Int
  public var height: Int

  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }
}

/// A rectangle in pixels: its top-left corner and its size.
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
