/// Shrinks an RGB picture by area averaging (a box filter with exact fractional
/// coverage), fed one source row at a time so the full-size picture is never held.
public struct AreaResampler {
  public let sourceWidth: Int
  public let sourceHeight: Int
  public let targetWidth: Int
  public let targetHeight: Int
  private let scaleY: Double
  private var columnStart: [Int] = []
  private var columnCount: [Int] = []
  private var columnWeights: [Float] = []
  private var accumulator: [Float]
  private var rowBuffer: [Float]
  private var nextSourceRow = 0

  public init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int) {
    precondition(sourceWidth > 0 && sourceHeight > 0 && targetWidth > 0 && targetHeight > 0)
    self.sourceWidth = sourceWidth
    self.sourceHeight = sourceHeight
    self.targetWidth = targetWidth
    self.targetHeight = targetHeight
    let scaleX = Double(sourceWidth) / Double(targetWidth)
    scaleY = Double(sourceHeight) / Double(targetHeight)
    for x in 0..<targetWidth {
      let left = Double(x) * scaleX
      let right = Double(x + 1) * scaleX
      let first = Int(left)
      let last = min(sourceWidth - 1, Int((right - 1e-9).rounded(.up)) - 1)
      columnStart.append(first)
      columnCount.append(max(1, last - first + 1))
      for column in first...max(first, last) {
        let covered = min(right, Double(column + 1)) - max(left, Double(column))
        columnWeights.append(Float(covered / scaleX))
      }
    }
    accumulator = [Float](repeating: 0, count: targetWidth * targetHeight * 3)
    rowBuffer = [Float](repeating: 0, count: targetWidth * 3)
  }

  /// Adds the next source row of `sourceWidth` RGB pixels.
  public mutating func addRow(_ row: UnsafePointer<UInt8>) {
    guard nextSourceRow < sourceHeight else { return }
    let targetWidth = self.targetWidth
    columnStart.withUnsafeBufferPointer { starts in
      columnCount.withUnsafeBufferPointer { counts in
        columnWeights.withUnsafeBufferPointer { weights in
          rowBuffer.withUnsafeMutableBufferPointer { out in
            var weightIndex = 0
            for x in 0..<targetWidth {
              var r: Float = 0
              var g: Float = 0
              var b: Float = 0
              var pixel = row + starts[x] * 3
              for _ in 0..<counts[x] {
                let weight = weights[weightIndex]
                r += weight * Float(pixel[0])
                g += weight * Float(pixel[1])
                b += weight * Float(pixel[2])
                weightIndex += 1
                pixel += 3
              }
              out[x * 3] = r
              out[x * 3 + 1] = g
              out[x * 3 + 2] = b
            }
          }
        }
      }
    }
    let top = Double(nextSourceRow)
    let bottom = top + 1
    var targetRow = min(targetHeight - 1, Int(top / scaleY))
    while targetRow < targetHeight {
      let rowTop = Double(targetRow) * scaleY
      let rowBottom = Double(targetRow + 1) * scaleY
      if rowTop >= bottom { break }
      let covered = Float((min(bottom, rowBottom) - max(top, rowTop)) / scaleY)
      if covered > 0 {
        let count = targetWidth * 3
        let base = targetRow * count
        rowBuffer.withUnsafeBufferPointer { source in
          accumulator.withUnsafeMutableBufferPointer { target in
            for i in 0..<count { target[base + i] += covered * source[i] }
          }
        }
      }
      targetRow += 1
    }
    nextSourceRow += 1
  }

  /// The shrunk picture; rows never added count as black.
  public func finish() -> RGBImage {
    var pixels = [UInt8](repeating: 0, count: accumulator.count)
    accumulator.withUnsafeBufferPointer { values in
      pixels.withUnsafeMutableBufferPointer { out in
        for i in 0..<values.count {
          out[i] = UInt8(max(0, min(255, values[i] + 0.5)))
        }
      }
    }
    return RGBImage(width: targetWidth, height: targetHeight, pixels: pixels)
  }
}
