import VaultTestSupport
import XCTest

@testable import VaultCore

/// A picture shrunk in bands of rows, on several cores, is bit for bit the picture one
/// resampler makes of it whole: random sizes, crops, targets and band counts.
final class AreaShrunkTests: XCTestCase {
  func testBandsMakeWhatOneResamplerMakes() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for round in 0..<200 {
      let width = Int.random(in: 1...160, using: &random)
      let height = Int.random(in: 1...160, using: &random)
      let picture = RGBImage(
        width: width, height: height,
        pixels: (0..<width * height * 3).map { _ in UInt8.random(in: 0...255, using: &random) })
      let cropWidth = Int.random(in: 1...width, using: &random)
      let cropHeight = Int.random(in: 1...height, using: &random)
      let left = Int.random(in: 0...width - cropWidth, using: &random)
      let top = Int.random(in: 0...height - cropHeight, using: &random)
      let targetWidth = Int.random(in: 1...cropWidth, using: &random)
      let targetHeight = Int.random(in: 1...cropHeight, using: &random)
      let bands = Int.random(in: 1...8, using: &random)
      let whole = Self.shrunkWhole(
        picture, left: left, top: top, cropWidth: cropWidth, cropHeight: cropHeight, targetWidth: targetWidth,
        targetHeight: targetHeight)
      let banded = picture.areaShrunk(
        left: left, top: top, cropWidth: cropWidth, cropHeight: cropHeight, targetWidth: targetWidth,
        targetHeight: targetHeight, bandCount: bands)
      // Not XCTAssertEqual: it would print every pixel of both.
      XCTAssertTrue(
        banded == whole,
        "round \(round): \(cropWidth)×\(cropHeight) at \(left),\(top) of \(width)×\(height) to "
          + "\(targetWidth)×\(targetHeight) in \(bands) bands (seed \(seed))")
    }
  }

  /// A photo as the viewer shrinks it to a screen (2000×1500 to 1216×912) in two bands.
  func testAPhotoShrunkToTheScreenInTwoBands() {
    var random = SeededGenerator(seed: 3)
    let picture = RGBImage(
      width: 2000, height: 1500,
      pixels: (0..<2000 * 1500 * 3).map { _ in UInt8.random(in: 0...255, using: &random) })
    let whole = Self.shrunkWhole(
      picture, left: 0, top: 0, cropWidth: 2000, cropHeight: 1500, targetWidth: 1216, targetHeight: 912)
    XCTAssertTrue(
      picture.areaShrunk(
        left: 0, top: 0, cropWidth: 2000, cropHeight: 1500, targetWidth: 1216, targetHeight: 912, bandCount: 2
      )
        == whole)
  }

  /// One resampler fed every row of the crop, as `aspectFilled` shrank before bands.
  static func shrunkWhole(
    _ picture: RGBImage, left: Int, top: Int, cropWidth: Int, cropHeight: Int, targetWidth: Int,
    targetHeight: Int
  ) -> RGBImage {
    var resampler = AreaResampler(
      sourceWidth: cropWidth, sourceHeight: cropHeight, targetWidth: targetWidth, targetHeight: targetHeight)
    picture.pixels.withUnsafeBufferPointer { buffer in
      for y in top..<(top + cropHeight) {
        resampler.addRow(buffer.baseAddress! + (y * picture.width + left) * 3)
      }
    }
    return resampler.finish()
  }
}
