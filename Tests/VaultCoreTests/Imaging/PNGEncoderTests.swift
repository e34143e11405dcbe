import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// PNG written for kitty reads back as the same pixels, RGB and RGBA, noisy or flat.
final class PNGEncoderTests: XCTestCase {
  func decodedRGBA(_ png: [UInt8]) throws -> (width: Int, height: Int, pixels: [UInt8]) {
    let decoder = try PNGDecoder(bytes: png, name: "encoded")
    var pixels: [UInt8] = []
    try decoder.decode { row in pixels += UnsafeBufferPointer(start: row, count: decoder.width * 4) }
    return (decoder.width, decoder.height, pixels)
  }

  func testPixelsComeBackTheSame() throws {
    var generator = SystemRandomNumberGenerator()
    let shapes = [(1, 1, 3), (37, 11, 3), (64, 48, 4), (5, 300, 4)]
    for ((width, height, channels), filter) in shapes.flatMap({ shape in
      [PNGEncoder.Filter.sub, .average].map { (shape, $0) }
    }) {
      let pixels = (0..<(width * height * channels)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let png = try XCTUnwrap(
        PNGEncoder.encode(pixels, width: width, height: height, channels: channels, filter: filter))
      let decoded = try decodedRGBA(png)
      XCTAssertEqual(decoded.width, width)
      XCTAssertEqual(decoded.height, height)
      let expected =
        channels == 4
        ? pixels : stride(from: 0, to: pixels.count, by: 3).flatMap { Array(pixels[$0..<($0 + 3)]) + [255] }
      XCTAssertEqual(decoded.pixels, expected, "\(width)×\(height)×\(channels), \(filter)")
    }
  }

  /// Deflated in bands of rows on several threads, each band on its own, the PNG is one
  /// valid zlib stream (checksum and CRCs libpng checks) of the same pixels, whatever the
  /// bands: random sizes, 1 to 6 bands, rows shorter and longer than a band, both filters.
  func testBandsJoinIntoOnePNGOfTheSamePixels() throws {
    let seed =
      ProcessInfo.processInfo.environment["VAULT_TEST_SEED"].flatMap(UInt64.init)
      ?? UInt64.random(in: 1...UInt64.max >> 1)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<40 {
      let (width, height) = (Int.random(in: 1...90, using: &random), Int.random(in: 1...400, using: &random))
      let channels = Bool.random(using: &random) ? 3 : 4
      let filter = Bool.random(using: &random) ? PNGEncoder.Filter.sub : .average
      let bands = Int.random(in: 1...6, using: &random)
      // Runs and noise: zlib's run-length matching meets both.
      let pixels = (0..<(width * height * channels)).map { index in
        index % 97 < 40 ? UInt8(index / 97 % 256) : UInt8.random(in: 0...255, using: &random)
      }
      let what =
        "seed \(seed) (VAULT_TEST_SEED replays it): \(width)×\(height)×\(channels), \(filter), \(bands) bands"
      let png = try XCTUnwrap(
        PNGEncoder.encode(
          pixels, width: width, height: height, channels: channels, filter: filter, bands: bands),
        what)
      let decoded: (width: Int, height: Int, pixels: [UInt8])
      do {
        decoded = try decodedRGBA(png)
      } catch {
        return XCTFail("\(what): \(error)")
      }
      XCTAssertEqual(decoded.width, width, what)
      XCTAssertEqual(decoded.height, height, what)
      let expected =
        channels == 4
        ? pixels : stride(from: 0, to: pixels.count, by: 3).flatMap { Array(pixels[$0..<($0 + 3)]) + [255] }
      XCTAssertEqual(decoded.pixels, expected, what)
    }
  }

  /// A smooth picture (a photo's gradients) is sent in well under half its raw bytes.
  func testASmoothPictureShrinks() throws {
    let (width, height) = (640, 480)
    let pixels = (0..<(width * height)).flatMap { index -> [UInt8] in
      let (x, y) = (index % width, index / width)
      return [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x + y) % 256)]
    }
    let png = try XCTUnwrap(PNGEncoder.encode(pixels, width: width, height: height, channels: 3))
    XCTAssertLessThan(png.count, pixels.count / 2)
    XCTAssertEqual(try decodedRGBA(png).pixels.count, width * height * 4)
  }
}
