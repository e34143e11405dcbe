import CVaultImaging

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
  /// The first source column of each output column, and the weights of the `taps`
  /// source columns from there (`taps` for every output column, the unused ones 0), so
  /// that averaging across columns has no inner loop of varying length.
  private var columnStart: [Int64] = []
  private let taps: Int
  private var columnWeights: [Float] = []
  private var currentSums: [Float]
  private var nextSums: [Float]
  /// Whether no source row has been added into `currentSums` / `nextSums` since they were
  /// last emitted: the first row is then stored rather than added, which spares clearing
  /// the sums (one more pass over a row as wide as the source) for every output row.
  private var currentIsEmpty = true
  private var nextIsEmpty = true
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
    var weights: [[Float]] = []
    for x in 0..<targetWidth {
      let left = Double(x) * scaleX
      let right = Double(x + 1) * scaleX
      let first = Int(left)
      let last = min(sourceWidth - 1, Int((right - 1e-9).rounded(.up)) - 1)
      columnStart.append(Int64(first))
      weights.append(
        (first...max(first, last)).map { column in
          Float((min(right, Double(column + 1)) - max(left, Double(column))) / scaleX)
        })
    }
    taps = weights.map(\.count).max()!
    for columnWeights in weights {
      self.columnWeights += columnWeights + [Float](repeating: 0, count: taps - columnWeights.count)
    }
    // Past the last column, `taps` pixels of zeros that the unused taps may read.
    currentSums = [Float](repeating: 0, count: (sourceWidth + taps) * 3)
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
    let count = sourceWidth * 3  // the padding past it stays zero
    currentSums.withUnsafeMutableBufferPointer { sums in
      Self.accumulate(
        row, weight: inCurrent, into: sums.baseAddress!, count: count, replacing: currentIsEmpty)
    }
    currentIsEmpty = false
    if inNext > 0 {
      nextSums.withUnsafeMutableBufferPointer { sums in
        Self.accumulate(row, weight: inNext, into: sums.baseAddress!, count: count, replacing: nextIsEmpty)
      }
      nextIsEmpty = false
    }
    nextSourceRow += 1
    if Double(nextSourceRow) >= currentBottom - 1e-9 { emitAndAdvance() }
  }

  /// `sums[i] += weight × row[i]`, or `=` when the sums are empty. Plain loops over
  /// pointers, which the compiler vectorizes: this runs for every sample of the picture.
  @inline(__always)
  private static func accumulate(
    _ row: UnsafePointer<UInt8>, weight: Float, into sums: UnsafeMutablePointer<Float>, count: Int,
    replacing: Bool
  ) {
    if replacing {
      for i in 0..<count { sums[i] = weight * Float(row[i]) }
    } else {
      for i in 0..<count { sums[i] += weight * Float(row[i]) }
    }
  }

  /// Emits output row `currentRow` and moves on: the next row's sums become the current.
  private mutating func emitAndAdvance() {
    if currentIsEmpty {
      // Only past the last source row (a picture that ended early): it counts as black.
      for i in 0..<currentSums.count { currentSums[i] = 0 }
    }
    emitCurrentRow()
    swap(&currentSums, &nextSums)
    currentIsEmpty = nextIsEmpty
    nextIsEmpty = true
  }

  /// Averages the finished row of sums across columns into output row `currentRow` (in
  /// C: Swift checks each float-to-byte conversion, and this runs for every sample).
  private mutating func emitCurrentRow() {
    let row = currentRow * targetWidth * 3
    let (taps, targetWidth) = (self.taps, self.targetWidth)
    columnStart.withUnsafeBufferPointer { starts in
      columnWeights.withUnsafeBufferPointer { weights in
        currentSums.withUnsafeBufferPointer { sums in
          output.withUnsafeMutableBufferPointer { out in
            vault_average_columns(
              sums.baseAddress, starts.baseAddress, weights.baseAddress, Int32(taps), Int32(targetWidth),
              out.baseAddress! + row)
          }
        }
      }
    }
    currentRow += 1
  }

  /// The shrunk picture; rows never added count as black.
  public mutating func finish() -> RGBImage {
    while currentRow < targetHeight { emitAndAdvance() }
    return RGBImage(width: targetWidth, height: targetHeight, pixels: output)
  }
}
