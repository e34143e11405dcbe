/// Shrinks an RGB picture by area averaging (a box filter with exact fractional
/// coverage), fed one source row at a time so the full-size picture is never held.
///
/// Each source row is first added, weighted by how much of it falls in the output row,
/// into a row of sums as wide as the source; when an output row is complete, its sums are
/// averaged across columns into output pixels. A source row straddles at most two output
/// rows, so two rows of sums are all the memory it needs beyond the output.
public struct AreaResampler {
  public let sourceWidth: Int
  public let sourceHeight: Int
  public let targetWidth: Int
  public let targetHeight: Int
  private let scaleY: Double
  private var columnStart: [Int] = []
  private var columnCount: [Int] = []
  private var columnWeights: [Float] = []
  private var currentSums: [Float]
  private var nextSums: [Float]
  private var currentRow = 0
  private var nextSourceRow = 0
  private var output: [UInt8]

  /// The target may not be larger than the source in either direction.
  public init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int) {
    precondition(targetWidth > 0 && targetHeight > 0)
    precondition(targetWidth <= sourceWidth && targetHeight <= sourceHeight, "area averaging only shrinks")
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
    currentSums = [Float](repeating: 0, count: sourceWidth * 3)
    nextSums = currentSums
    output = [UInt8](repeating: 0, count: targetWidth * targetHeight * 3)
  }

  /// Adds the next source row of `sourceWidth` RGB pixels.
  public mutating func addRow(_ row: UnsafePointer<UInt8>) {
    guard nextSourceRow < sourceHeight, currentRow < targetHeight else { return }
    let top = Double(nextSourceRow)
    let bottom = top + 1
    let currentBottom = Double(currentRow + 1) * scaleY
    let inCurrent = Float((min(bottom, currentBottom) - top) / scaleY)
    let inNext = Float(max(0, bottom - currentBottom) / scaleY)
    let count = sourceWidth * 3
    currentSums.withUnsafeMutableBufferPointer { sums in
      for i in 0..<count { sums[i] += inCurrent * Float(row[i]) }
    }
    if inNext > 0 {
      nextSums.withUnsafeMutableBufferPointer { sums in
        for i in 0..<count { sums[i] += inNext * Float(row[i]) }
      }
    }
    nextSourceRow += 1
    if Double(nextSourceRow) >= currentBottom - 1e-9 {
      emitCurrentRow()
      swap(&currentSums, &nextSums)
      nextSums.withUnsafeMutableBufferPointer { sums in
        for i in 0..<count { sums[i] = 0 }
      }
    }
  }

  /// Averages the finished row of sums across columns into output row `currentRow`.
  private mutating func emitCurrentRow() {
    let base = currentRow * targetWidth * 3
    let targetWidth = self.targetWidth
    columnStart.withUnsafeBufferPointer { starts in
      columnCount.withUnsafeBufferPointer { counts in
        columnWeights.withUnsafeBufferPointer { weights in
          currentSums.withUnsafeBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { out in
              var weightIndex = 0
              for x in 0..<targetWidth {
                var r: Float = 0
                var g: Float = 0
                var b: Float = 0
                var column = starts[x] * 3
                for _ in 0..<counts[x] {
                  let weight = weights[weightIndex]
                  r += weight * sums[column]
                  g += weight * sums[column + 1]
                  b += weight * sums[column + 2]
                  weightIndex += 1
                  column += 3
                }
                out[base + x * 3] = UInt8(max(0, min(255, r + 0.5)))
                out[base + x * 3 + 1] = UInt8(max(0, min(255, g + 0.5)))
                out[base + x * 3 + 2] = UInt8(max(0, min(255, b + 0.5)))
              }
            }
          }
        }
      }
    }
    currentRow += 1
  }

  /// The shrunk picture; rows never added count as black.
  public mutating func finish() -> RGBImage {
    while currentRow < targetHeight {
      emitCurrentRow()
      swap(&currentSums, &nextSums)
      for i in 0..<nextSums.count { nextSums[i] = 0 }
    }
    return RGBImage(width: targetWidth, height: targetHeight, pixels: output)
  }
}
