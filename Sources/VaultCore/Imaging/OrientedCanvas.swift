/// Takes a picture's rows as they are stored and writes each pixel straight where it shows
/// under an EXIF orientation, so turning a photo needs no second copy of it. The pixels are
/// made once at their final size and never grown (a grown array leaves its old, unwiped
/// copy behind).
package struct OrientedCanvas {
  package let storedWidth: Int
  package let storedHeight: Int
  package let orientation: Int
  package private(set) var pixels: [UInt8]
  private var rowsAdded = 0

  package init(storedWidth: Int, storedHeight: Int, orientation: Int) {
    precondition(storedWidth > 0 && storedHeight > 0)
    self.storedWidth = storedWidth
    self.storedHeight = storedHeight
    self.orientation = (1...8).contains(orientation) ? orientation : 1
    pixels = [UInt8](repeating: 0, count: storedWidth * storedHeight * 3)
  }

  package var swapsDimensions: Bool { ExifOrientation.swapsDimensions(orientation) }
  /// The size as shown.
  package var width: Int { swapsDimensions ? storedHeight : storedWidth }
  package var height: Int { swapsDimensions ? storedWidth : storedHeight }
  package var isComplete: Bool { rowsAdded == storedHeight }

  /// Adds the next stored row (`storedWidth` RGB pixels); rows past the last are ignored.
  package mutating func addRow(_ row: UnsafePointer<UInt8>) {
    guard rowsAdded < storedHeight else { return }
    let (start, step) = placement(ofRow: rowsAdded)
    let count = storedWidth
    pixels.withUnsafeMutableBufferPointer { output in
      let base = output.baseAddress!
      if step == 1 {
        (base + start * 3).update(from: row, count: count * 3)
        return
      }
      var target = start
      for x in 0..<count {
        (base + target * 3).update(from: row + x * 3, count: 3)
        target += step
      }
    }
    rowsAdded += 1
  }

  /// Where stored row `y` goes: the shown pixel of its first pixel, and the step (in
  /// pixels) from one of its pixels to the next. The inverse of `RGBImage.oriented`'s
  /// mapping; width `w` and height `h` are the stored ones.
  private func placement(ofRow y: Int) -> (start: Int, step: Int) {
    let w = storedWidth
    let h = storedHeight
    switch orientation {
    case 2: return (y * w + w - 1, -1)
    case 3: return ((h - 1 - y) * w + w - 1, -1)
    case 4: return ((h - 1 - y) * w, 1)
    case 5: return (y, h)
    case 6: return (h - 1 - y, h)
    case 7: return ((w - 1) * h + h - 1 - y, -h)
    case 8: return ((w - 1) * h + y, -h)
    default: return (y * w, 1)
    }
  }

  /// The picture as shown.
  package func finish() -> RGBImage {
    RGBImage(width: width, height: height, pixels: pixels)
  }

  /// Overwrites what was decoded so far (a decode that failed part way).
  package mutating func wipe() {
    pixels.wipe()
  }
}
