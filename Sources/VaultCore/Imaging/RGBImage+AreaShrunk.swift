import Dispatch
import Foundation

extension RGBImage {
  /// The `cropWidth`×`cropHeight` rectangle at `left`, `top` shrunk by area averaging to
  /// `targetWidth`×`targetHeight`, in bands of output rows on every core: the viewer shrinks
  /// each photo it shows whole to the screen's pixels (2000×1500 to 1216×912, ~10 ms on one
  /// core) on the way to the first photo, while the other core waits. Bit for bit what one
  /// `AreaResampler` makes (each band's rows are summed as the whole target's are).
  /// (`bandCount` sets the bands, for tests.)
  func areaShrunk(
    left: Int, top: Int, cropWidth: Int, cropHeight: Int, targetWidth: Int, targetHeight: Int,
    bandCount: Int? = nil
  ) -> RGBImage {
    // A band is worth a thread from about a quarter of a megapixel of output on.
    let bands = max(
      1,
      min(
        bandCount ?? min(ProcessInfo.processInfo.activeProcessorCount, targetWidth * targetHeight / 250_000),
        targetHeight))
    // WaitableMutex, not Synchronization's Mutex: Thread Sanitizer sees its lock (security
    // review: it reported the bands' writes under a Mutex as a race).
    let parts = WaitableMutex([[UInt8]](repeating: [], count: bands))
    DispatchQueue.concurrentPerform(iterations: bands) { band in
      let rows = band * targetHeight / bands..<(band + 1) * targetHeight / bands
      let part = areaShrunkBand(
        rows, left: left, top: top, cropWidth: cropWidth, cropHeight: cropHeight, targetWidth: targetWidth,
        targetHeight: targetHeight)
      parts.withLock { $0[band] = part.pixels }
    }
    let shrunk = parts.withLock { $0.flatMap { $0 } }
    return RGBImage(width: targetWidth, height: targetHeight, pixels: shrunk)
  }

  /// Output rows `rows` of `areaShrunk`, from the source rows that fall in them.
  private func areaShrunkBand(
    _ rows: Range<Int>, left: Int, top: Int, cropWidth: Int, cropHeight: Int, targetWidth: Int,
    targetHeight: Int
  ) -> RGBImage {
    var resampler = AreaResampler(
      sourceWidth: cropWidth, sourceHeight: cropHeight, targetWidth: targetWidth, targetHeight: targetHeight,
      targetRows: rows)
    pixels.withUnsafeBufferPointer { buffer in
      for y in resampler.firstSourceRow..<cropHeight where !resampler.isComplete {
        resampler.addRow(buffer.baseAddress! + ((top + y) * width + left) * 3)
      }
    }
    return resampler.finish()
  }
}
