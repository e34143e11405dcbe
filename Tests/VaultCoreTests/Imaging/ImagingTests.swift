import XCTest

@testable import VaultCore
@testable import VaultDecoder

final class ExifOrientationTests: XCTestCase {
  func exif(_ orientation: UInt16, littleEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3) -> [UInt8] {
    TestImages.exifSegment(orientation, littleEndian: littleEndian, tag: tag, type: type)
  }

  func testAllEightInBothByteOrders() {
    for orientation in 1...8 {
      for littleEndian in [true, false] {
        XCTAssertEqual(
          ExifOrientation.read(app1: exif(UInt16(orientation), littleEndian: littleEndian)), orientation)
      }
    }
  }

  func testGarbledAndTruncatedSegmentsGiveNoOrientation() {
    let good = exif(6, littleEndian: false)
    // The value ends 6 bytes before the segment does (2 bytes of padding, the next-IFD offset).
    for length in 0..<good.count - 6 {
      XCTAssertNil(ExifOrientation.read(app1: Array(good[0..<length])), "cut at \(length)")
    }
    XCTAssertNil(ExifOrientation.read(app1: exif(9, littleEndian: true)))
    XCTAssertNil(ExifOrientation.read(app1: exif(0, littleEndian: true)))
    XCTAssertNil(ExifOrientation.read(app1: exif(6, littleEndian: true, type: 4)))
    XCTAssertNil(ExifOrientation.read(app1: Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8)))
    var badOffset = good
    badOffset[13] = 0xFF
    XCTAssertNil(ExifOrientation.read(app1: badOffset))
  }
}

final class ImagingTests: XCTestCase {
  func testScaleChoiceKeepsAtLeastTheThumbnailSize() {
    XCTAssertEqual(
      JPEGDecoder.scaleDenominator(width: 4000, height: 3000, targetWidth: 512, targetHeight: 384), 4)
    XCTAssertEqual(
      JPEGDecoder.scaleDenominator(width: 4096, height: 3072, targetWidth: 512, targetHeight: 384), 8)
    XCTAssertEqual(
      JPEGDecoder.scaleDenominator(width: 1000, height: 800, targetWidth: 512, targetHeight: 410), 1)
    XCTAssertEqual(
      JPEGDecoder.scaleDenominator(width: 1100, height: 800, targetWidth: 512, targetHeight: 372), 2)
    XCTAssertEqual(
      JPEGDecoder.scaleDenominator(width: 300, height: 200, targetWidth: 300, targetHeight: 200), 1)
  }

  func testRowsShrunkFurtherDecodeFastAndStayCloseToTheExactDecode() throws {
    func decoded(_ jpeg: [UInt8], _ name: String, fast: Bool) throws -> RGBImage {
      let decoder = try JPEGDecoder(bytes: jpeg, name: name)
      var pixels: [UInt8] = []
      let size = try decoder.decode(scaleDenominator: 1, shrinksFurther: fast) { row in
        pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: decoder.width * 3))
      }
      XCTAssertEqual(pixels.count, size.width * size.height * 3, name)
      return RGBImage(width: size.width, height: size.height, pixels: pixels)
    }
    // Full-size decodes of 4:4:4 pictures, where every block takes the 8×8 IDCT: the fast
    // one differs, and once averaged down to half size (thumbnails shrink at least that
    // much from a full-size decode: 1/2 would be used otherwise), hardly.
    for (name, picture) in [
      ("photo", TestImages.photoLike(width: 301, height: 203, seed: 3)),
      ("plasma", TestImages.plasmaLike(width: 301, height: 203, seed: 4)),
    ] {
      let jpeg = try JPEGEncoder.encode(picture, quality: 92)
      let exact = try decoded(jpeg, name, fast: false)
      let fast = try decoded(jpeg, name, fast: true)
      XCTAssertTrue(exact != fast, "\(name): the fast IDCT was not used")
      let psnr = TestImages.psnr(
        exact.aspectFilled(width: exact.width / 2, height: exact.height / 2),
        fast.aspectFilled(width: fast.width / 2, height: fast.height / 2))
      XCTAssertGreaterThanOrEqual(psnr, 40, "\(name): \(String(format: "%.1f", psnr)) dB")
    }
    // 4:2:0: chroma replicated (the merged upsampler) instead of interpolated. It differs
    // most at sharp edges between saturated colours; each quadrant keeps its colour.
    let quad = try fileBytes(fixturesPath + "/quad-420.jpg")
    let fast = try decoded(quad, "quad-420.jpg", fast: true)
    XCTAssertTrue(try decoded(quad, "quad-420.jpg", fast: false) != fast, "plain upsampling was not used")
    assertColour(fast, 16, 12, [255, 0, 0], "quad-420.jpg")
    assertColour(fast, 48, 12, [0, 255, 0], "quad-420.jpg")
    assertColour(fast, 16, 36, [0, 0, 255], "quad-420.jpg")
    assertColour(fast, 48, 36, [255, 255, 255], "quad-420.jpg")
  }

  func testTargetSizeKeepsAspectAndNeverEnlarges() {
    let thumbnailer = Thumbnailer()
    XCTAssert(thumbnailer.targetSize(width: 4000, height: 3000) == (512, 384))
    XCTAssert(thumbnailer.targetSize(width: 3000, height: 4000) == (384, 512))
    XCTAssert(thumbnailer.targetSize(width: 100, height: 50) == (100, 50))
    XCTAssert(thumbnailer.targetSize(width: 10000, height: 1) == (512, 1))
  }

  func testAreaResamplerAveragesBlocks() {
    // A 4×2 picture of two 2×2 blocks, black and white, shrinks to one gray-free pixel each.
    var resampler = AreaResampler(sourceWidth: 4, sourceHeight: 2, targetWidth: 2, targetHeight: 1)
    let row: [UInt8] = [0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255]
    row.withUnsafeBufferPointer { resampler.addRow($0.baseAddress!) }
    row.withUnsafeBufferPointer { resampler.addRow($0.baseAddress!) }
    XCTAssertEqual(resampler.finish().pixels, [0, 0, 0, 255, 255, 255])
    // Three columns into two: the middle column is split evenly (weights 2/3, 1/3).
    var uneven = AreaResampler(sourceWidth: 3, sourceHeight: 1, targetWidth: 2, targetHeight: 1)
    let values: [UInt8] = [0, 0, 0, 90, 90, 90, 180, 180, 180]
    values.withUnsafeBufferPointer { uneven.addRow($0.baseAddress!) }
    XCTAssertEqual(uneven.finish().pixels, [30, 30, 30, 150, 150, 150])
    // The same down a column: the middle row straddles both output rows.
    var tall = AreaResampler(sourceWidth: 1, sourceHeight: 3, targetWidth: 1, targetHeight: 2)
    for value in [UInt8(0), 90, 180] {
      [value, value, value].withUnsafeBufferPointer { tall.addRow($0.baseAddress!) }
    }
    XCTAssertEqual(tall.finish().pixels, [30, 30, 30, 150, 150, 150])
    // A flat picture stays flat at any ratio.
    var flat = AreaResampler(sourceWidth: 997, sourceHeight: 701, targetWidth: 512, targetHeight: 360)
    let gray = [UInt8](repeating: 77, count: 997 * 3)
    for _ in 0..<701 { gray.withUnsafeBufferPointer { flat.addRow($0.baseAddress!) } }
    XCTAssertEqual(Set(flat.finish().pixels), [77])
  }

  func testOrientationFixturesShowUpright() throws {
    let thumbnailer = Thumbnailer()
    var names = (1...8).map { "orientation-\($0).jpg" }
    names.append("orientation-6-xmp.jpg")
    for name in names {
      let thumbnail = try thumbnailer.makeThumbnail(path: fixturesPath + "/" + name, format: .jpeg)
      XCTAssertEqual(thumbnail.width, 48, name)
      XCTAssertEqual(thumbnail.height, 32, name)
      let image = try decode(thumbnail.jpeg)
      XCTAssertEqual(image.width, 48, name)
      func near(_ x: Int, _ y: Int, _ expected: [Int]) {
        let i = (y * image.width + x) * 3
        let actual = image.pixels[i..<(i + 3)].map(Int.init)
        XCTAssertTrue(
          zip(actual, expected).allSatisfy { abs($0 - $1) < 40 }, "\(name) at \(x),\(y): \(actual)")
      }
      near(12, 8, [255, 0, 0])
      near(36, 8, [0, 255, 0])
      near(12, 24, [0, 0, 255])
      near(36, 24, [255, 255, 255])
    }
  }

  func testJPEGVariantsShowTheirColours() throws {
    let variants = ["cmyk", "ycck", "arithmetic", "restart", "444", "422", "420", "progressive", "big-app"]
    for variant in variants {
      let name = "quad-\(variant).jpg"
      let thumbnail = try Thumbnailer().makeThumbnail(path: fixturesPath + "/" + name, format: .jpeg)
      let image = try decode(thumbnail.jpeg)
      XCTAssertEqual([image.width, image.height], [64, 48], name)
      assertColour(image, 16, 12, [255, 0, 0], name)
      assertColour(image, 48, 12, [0, 255, 0], name)
      assertColour(image, 16, 36, [0, 0, 255], name)
      assertColour(image, 48, 36, [255, 255, 255], name)
    }
    // Grayscale: the luma of red, green, blue and white (BT.601).
    let gray = try decode(
      try Thumbnailer().makeThumbnail(path: fixturesPath + "/quad-gray.jpg", format: .jpeg).jpeg)
    assertColour(gray, 16, 12, [76, 76, 76], "quad-gray.jpg")
    assertColour(gray, 48, 12, [150, 150, 150], "quad-gray.jpg")
    assertColour(gray, 16, 36, [29, 29, 29], "quad-gray.jpg")
  }

  func testDamagedJPEGDataDecodesWithAWarning() throws {
    for name in ["truncated.jpg", "corrupt-data.jpg"] {
      let thumbnail = try Thumbnailer().makeThumbnail(path: fixturesPath + "/" + name, format: .jpeg)
      XCTAssertNotNil(thumbnail.warning, name)
      XCTAssertEqual(thumbnail.width, 160, name)
    }
  }

  func testDecompressionBombsAreRefusedFromTheirHeader() throws {
    for (name, format, width, height) in [
      ("bomb.png", ImageFormat.png, 100000, 100000), ("bomb.jpg", .jpeg, 65000, 65000),
    ] {
      XCTAssertThrowsError(
        try Thumbnailer().makeThumbnail(path: fixturesPath + "/bad/" + name, format: format)
      ) { error in
        guard case VaultError.imageTooLarge(_, width, height, 200_000_000) = error else {
          return XCTFail("\(name): \(error)")
        }
        XCTAssertTrue("\(error)".contains("over the limit of 200 megapixels"), "\(error)")
      }
    }
  }

  func assertColour(
    _ image: RGBImage, _ x: Int, _ y: Int, _ expected: [Int], _ name: String, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    let i = (y * image.width + x) * 3
    let actual = image.pixels[i..<(i + 3)].map(Int.init)
    XCTAssertTrue(
      zip(actual, expected).allSatisfy { abs($0 - $1) < 40 },
      "\(name) at \(x),\(y): \(actual), expected \(expected)", file: file, line: line)
  }

  func testALargeInterlacedPNGShrinksFromItsLastPassInOneRowOfMemory() throws {
    let folder = try makeTemporaryFolder(self)
    let picture = TestImages.photoLike(width: 1300, height: 900)
    try writeBytes(TestImages.png(picture, interlaced: true), to: folder + "/interlaced.png")
    try writeBytes(TestImages.png(picture, interlaced: false), to: folder + "/plain.png")
    var thumbnailer = Thumbnailer()
    thumbnailer.wholeInterlacedPixelLimit = 1_000_000
    let interlaced = try thumbnailer.makeThumbnail(path: folder + "/interlaced.png", format: .png)
    let plain = try thumbnailer.makeThumbnail(path: folder + "/plain.png", format: .png)
    XCTAssertEqual([interlaced.thumbnailWidth, interlaced.thumbnailHeight], [512, 354])
    XCTAssertEqual([interlaced.width, interlaced.height], [1300, 900])
    let psnr = TestImages.psnr(try decode(interlaced.jpeg), try decode(plain.jpeg))
    XCTAssertGreaterThan(psnr, 35, "odd rows only vs all rows")
  }

  func testPNGColourTypesDecode() throws {
    for name in ["gray.png", "palette.png", "rgba.png", "rgb16.png", "interlaced.png"] {
      let thumbnail = try Thumbnailer().makeThumbnail(path: fixturesPath + "/" + name, format: .png)
      XCTAssertGreaterThan(thumbnail.jpeg.count, 100, name)
      XCTAssertEqual(try decode(thumbnail.jpeg).width, thumbnail.thumbnailWidth, name)
    }
  }

  func testBrokenFilesAreRefusedWithTheirPath() {
    let bad = fixturesPath + "/bad"
    for (name, format) in [("corrupt.jpg", ImageFormat.jpeg), ("truncated.png", .png)] {
      XCTAssertThrowsError(try Thumbnailer().makeThumbnail(path: bad + "/" + name, format: format)) { error in
        XCTAssertTrue("\(error)".contains(name), "\(error)")
      }
    }
  }

  func testPixelLimitIsCheckedBeforeDecoding() throws {
    var thumbnailer = Thumbnailer()
    thumbnailer.pixelLimit = 1000
    XCTAssertThrowsError(try thumbnailer.makeThumbnail(path: fixturesPath + "/photo.jpg", format: .jpeg)) {
      error in
      guard case VaultError.imageTooLarge(_, 64, 48, 1000) = error else { return XCTFail("\(error)") }
    }
  }

  func testFormatsAreRecognisedByContent() {
    XCTAssertEqual(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
    XCTAssertEqual(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), .png)
    XCTAssertEqual(ImageFormat.sniff(Array("GIF89a".utf8)), .gif)
    XCTAssertEqual(ImageFormat.sniff(Array("GIF87a".utf8)), .gif)
    XCTAssertNil(ImageFormat.sniff(Array("GIF8".utf8)))
    XCTAssertEqual(ImageFormat.sniff(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)), .webp)
    XCTAssertNil(ImageFormat.sniff(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8)), "a WAV file")
    XCTAssertNil(ImageFormat.sniff([0x49, 0x49, 0x2A, 0x00]), "a TIFF")
    XCTAssertNil(ImageFormat.sniff([]))
  }

  /// A stored thumbnail larger than vault makes them (sealed by another holder of the
  /// password) is refused from its header, before libjpeg allocates for it.
  func testAThumbnailLargerThanAnyVaultMakesIsRefusedBeforeDecoding() throws {
    let side = RGBImage.thumbnailSideLimit + 8
    let wide = try JPEGEncoder.encode(
      RGBImage(width: side, height: 8, pixels: [UInt8](repeating: 90, count: side * 8 * 3)), quality: 80)
    XCTAssertThrowsError(try RGBImage.decodeJPEG(wide, name: "thumbnail of 'x'", thumbnail: true)) { error in
      XCTAssertEqual(
        "\(error)",
        "thumbnail of 'x' is damaged: it is \(side)×8, larger than a thumbnail can be (2048 a side)")
    }
    // Not a thumbnail: decoded.
    XCTAssertEqual(try RGBImage.decodeJPEG(wide, name: "x").width, side)
  }

  /// Decodes a JPEG made by the thumbnailer, through the project's own decoder.
  func decode(_ jpeg: [UInt8]) throws -> RGBImage {
    try RGBImage.decodeJPEG(jpeg, name: "thumbnail")
  }
}
