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
    var weightIndex = 0
    rowBuffer.withUnsafeMutableBufferPointer { out in
      for x in 0..<targetWidth {
        var r: Float = 0
        var g: Float = 0
        var b: Float = 0
        var column = columnStart[x]
        for _ in 0..<columnCount[x] {
          let weight = columnWeights[weightIndex]
          r += weight * Float(row[column * 3])
          g += weight * Float(row[column * 3 + 1])
          b += weight * Float(row[column * 3 + 2])
          weightIndex += 1
          column += 1
        }
        out[x * 3] = r
        out[x * 3 + 1] = g
        out[x * 3 + 2] = b
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
        let base = targetRow * targetWidth * 3
        for i in 0..<(targetWidth * 3) {
          accumulator[base + i] += covered * rowBuffer[i]
        }
      }
      targetRow += 1
    }
    nextSourceRow += 1
  }

  /// The shrunk picture; rows never added count as black.
  public func finish() -> RGBImage {
    let pixels = accumulator.map { UInt8(max(0, min(255, $0.rounded()))) }
    return RGBImage(width: targetWidth, height: targetHeight, pixels: pixels)
  }
}
