import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// HEIC through libheif: recognised by its brands, shown as the file's own transformations
/// say (and not turned again by EXIF), the primary image of several, transparency over
/// gray, under the same pixel and memory limits as JPEG and PNG. AVIF is told apart by its
/// brands (and decoded by libavif).
final class HEIFTests: XCTestCase {
  /// An ISO media file's first bytes: an `ftyp` box with these brands.
  func ftyp(_ major: String, _ compatible: [String] = []) -> [UInt8] {
    let length = 16 + 4 * compatible.count
    return [0, 0, 0, UInt8(length)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
      + compatible.flatMap { Array($0.utf8) } + Array(repeating: 0, count: 8)
  }

  func testHEIFIsRecognisedByItsBrands() {
    XCTAssertEqual(ImageFormat.sniff(ftyp("heic", ["mif1", "heic"])), .heic, "an iPhone's")
    XCTAssertEqual(ImageFormat.sniff(ftyp("heix")), .heic)
    XCTAssertEqual(ImageFormat.sniff(ftyp("mif1", ["mif1", "heic"])), .heic, "Nokia's samples")
    XCTAssertEqual(ImageFormat.sniff(ftyp("msf1", ["msf1", "hevc", "mif1"])), .heic, "a burst")
    for avif in [ftyp("avif", ["avif", "mif1", "miaf"]), ftyp("mif1", ["mif1", "avif"]), ftyp("avis")] {
      XCTAssertEqual(ImageFormat.sniff(avif), .avif)
    }
    XCTAssertEqual(ImageFormat.sniff(ftyp("mif1", ["mif1", "miaf"])), .heic, "no codec named: libheif says")
    XCTAssertEqual(ImageFormat.sniff(ftyp("isom", ["isom", "mp41"])), .mp4, "a video")
    XCTAssertNil(ImageFormat.unsupportedImage(ftyp("isom", ["isom", "mp41"])))
    XCTAssertEqual(ImageFormat.sniff(ftyp("qt  ")), .mov, "a QuickTime movie")
    XCTAssertNil(ImageFormat.sniff(Array(ftyp("heic").prefix(11))))
    // Brands past the box's own length belong to the next box.
    var short = ftyp("mif1", ["mif1", "avif"])
    short[3] = 20
    XCTAssertEqual(ImageFormat.sniff(short), .heic)
    XCTAssertEqual(ImageFormat.displayNames(joinedBy: "or"), "JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV")
  }

  /// The fixture's thumbnail, made through the file's descriptor and from bytes in memory
  /// (the two must agree), and its original decoded for showing.
  func decodings(_ name: String) throws -> (Thumbnail, DecodedPhoto) {
    let path = fixturesPath + "/" + name
    let fromFile = try Thumbnailer().makeThumbnail(path: path, format: .heic)
    let fromBytes = try Thumbnailer().makeThumbnail(bytes: fileBytes(path), name: name, format: .heic)
    XCTAssertEqual(fromFile.jpeg, fromBytes.jpeg, name)
    let shown = try PhotoDecoder.decode(
      PlaintextBytes(fileBytes(path)), format: .heic, name: name, minimumSize: nil, limits: Thumbnailer())
    return (fromFile, shown)
  }

  func thumbnailImage(_ thumbnail: Thumbnail) throws -> RGBImage {
    try RGBImage.decodeJPEG(thumbnail.jpeg, name: "thumbnail")
  }

  func testEveryHEIFOrientationIsShownUprightAndNeverTurnedAgain() throws {
    // orientation-6-exif.heic says 6 twice, in irot and in EXIF, as an iPhone does.
    let names = (1...8).map { "orientation-\($0).heic" } + ["orientation-6-exif.heic"]
    for name in names {
      let (thumbnail, shown) = try decodings(name)
      XCTAssertEqual([thumbnail.width, thumbnail.height], [48, 32], name)
      XCTAssertEqual(thumbnail.orientation, 1, "\(name): libheif turned it already")
      assertUprightQuadrants(try thumbnailImage(thumbnail), name)
      XCTAssertEqual(shown.fullSize, PixelSize(width: 48, height: 32), name)
      XCTAssertEqual(shown.scaleDenominator, 1, name)
      assertUprightQuadrants(shown.image, name)
    }
  }

  func testTheShownImageIsThePrimaryOneOfSeveral() throws {
    // The first image is 40×40 and black; the primary one, the second, the quadrants.
    let (thumbnail, shown) = try decodings("two-images.heic")
    XCTAssertEqual([thumbnail.width, thumbnail.height], [48, 32])
    assertUprightQuadrants(try thumbnailImage(thumbnail), "two-images.heic")
    assertUprightQuadrants(shown.image, "two-images.heic")
  }

  func testTransparencyIsCompositedOverTheThumbnailersGray() throws {
    // The left half is opaque red over blue, the right half transparent.
    let (thumbnail, shown) = try decodings("alpha.heic")
    for image in [try thumbnailImage(thumbnail), shown.image] {
      for (x, y, expected) in [
        (12, 8, [255, 0, 0]), (12, 24, [0, 0, 255]), (36, 8, [128, 128, 128]), (36, 24, [128, 128, 128]),
      ] {
        let i = (y * image.width + x) * 3
        let actual = image.pixels[i..<(i + 3)].map(Int.init)
        XCTAssertTrue(
          zip(actual, expected).allSatisfy { abs($0 - $1) < 24 }, "alpha.heic at \(x),\(y): \(actual)")
      }
    }
  }

  func testTheCleanApertureCropsTheCodedPicture() throws {
    let (thumbnail, shown) = try decodings("odd-size.heic")
    XCTAssertEqual([thumbnail.width, thumbnail.height], [45, 29])
    assertUprightQuadrants(try thumbnailImage(thumbnail), width: 45, height: 29, "odd-size.heic")
    XCTAssertEqual(shown.fullSize, PixelSize(width: 45, height: 29))
  }

  func testATwelveMegapixelHEICFitsThePhotoMemoryLimitAndShrinksWhenShown() throws {
    let name = "quad-12mp.heic"
    let path = fixturesPath + "/" + name
    let thumbnailer = Thumbnailer()
    let opened = try thumbnailer.open(SourceFile(path: path), format: .heic)
    // libheif decodes it whole: about 6–9 bytes a pixel at its peak (measured), counted as 10.
    XCTAssertGreaterThan(opened.memoryNeeded, 4032 * 3024 * 9)
    XCTAssertLessThanOrEqual(opened.memoryNeeded, thumbnailer.memoryLimit)
    let thumbnail = try thumbnailer.makeThumbnail(opened)
    XCTAssertEqual(
      [thumbnail.width, thumbnail.height, thumbnail.thumbnailWidth, thumbnail.thumbnailHeight],
      [4032, 3024, 512, 384])
    assertUprightQuadrants(try thumbnailImage(thumbnail), width: 512, height: 384, name)
    // Shown on a screen: decoded whole, kept averaged down as a JPEG's DCT scaling would.
    let shown = try PhotoDecoder.decode(
      PlaintextBytes(fileBytes(path)), format: .heic, name: name,
      minimumSize: PixelSize(width: 400, height: 300),
      limits: thumbnailer)
    XCTAssertEqual(shown.scaleDenominator, 8)
    XCTAssertEqual(shown.fullSize, PixelSize(width: 4032, height: 3024))
    assertUprightQuadrants(shown.image, width: 504, height: 378, name)
  }

  func testLimitsAreCheckedBeforeDecoding() throws {
    var small = Thumbnailer()
    small.memoryLimit = 64 << 20
    for decode in [
      { try small.makeThumbnail(path: fixturesPath + "/quad-12mp.heic", format: .heic) },
      {
        try PhotoDecoder.decode(
          PlaintextBytes(fileBytes(fixturesPath + "/quad-12mp.heic")), format: .heic, name: "quad-12mp.heic",
          minimumSize: PixelSize(width: 100, height: 100), limits: small)
      },
    ] as [() throws -> Any] {
      XCTAssertThrowsError(try decode()) { error in
        guard case VaultError.tooMuchMemory(let path, _, 64 << 20) = error else { return XCTFail("\(error)") }
        XCTAssertTrue(path.hasSuffix("quad-12mp.heic"), path)
      }
    }
    var few = Thumbnailer()
    few.pixelLimit = 1000
    XCTAssertThrowsError(try few.makeThumbnail(path: fixturesPath + "/orientation-6.heic", format: .heic)) {
      error in
      guard case VaultError.imageTooLarge(_, 48, 32, 1000) = error else { return XCTFail("\(error)") }
    }
    // A tiny file that declares 30000×30000 pixels (under libheif's own limit of 32768 a side).
    XCTAssertThrowsError(
      try Thumbnailer().makeThumbnail(path: fixturesPath + "/bad/bomb.heic", format: .heic)
    ) {
      error in
      guard case VaultError.imageTooLarge(_, 30000, 30000, 200_000_000) = error else {
        return XCTFail("\(error)")
      }
    }
  }

  /// A 798-byte file whose ispe box says 48×32 while its HEVC sequence parameter set codes
  /// 16384×16384: libheif allocates what the SPS codes (1.7 GB, measured), so that is what
  /// is counted, and the file is refused before anything is decoded.
  func testTheCodedPictureIsCountedNotTheSizeTheHeaderClaims() throws {
    let path = fixturesPath + "/bad/coded-bomb.heic"
    for decode in [
      { try Thumbnailer().makeThumbnail(path: path, format: .heic) },
      {
        try PhotoDecoder.decode(
          PlaintextBytes(fileBytes(path)), format: .heic, name: path, minimumSize: nil, limits: Thumbnailer())
      },
    ] as [() throws -> Any] {
      XCTAssertThrowsError(try decode()) { error in
        guard case VaultError.tooMuchMemory(path, let bytes, _) = error else { return XCTFail("\(error)") }
        XCTAssertGreaterThan(bytes, 16384 * 16384 * 6)
      }
    }
    let bomb = try pictureSizes(path)
    XCTAssertEqual(bomb.largestCodedPicture, 16384 * 16384)
    XCTAssertEqual(bomb.largestCanvas, 0)
    // An ordinary file's SPS: the 12-megapixel one is coded at its own size.
    XCTAssertEqual(try pictureSizes(fixturesPath + "/quad-12mp.heic").largestCodedPicture, 4032 * 3024)
  }

  func pictureSizes(_ path: String) throws -> HEIFPictureSizes {
    let bytes = try fileBytes(path)
    return HEIFPictureSizes(length: bytes.count) { offset, count in
      offset >= 0 && count >= 0 && offset <= bytes.count - count ? Array(bytes[offset..<offset + count]) : nil
    }
  }

  /// A grid's or an overlay's canvas is allocated whole, whatever the ispe says: 16 or 32
  /// bits a side, as the flags say.
  func testTheCanvasOfAGridOrAnOverlayIsReadFromItsItem() {
    func item(_ bytes: [UInt8]) -> ItemData {
      ItemData(extents: [(0, bytes.count)]) { offset, count in
        offset + count <= bytes.count ? Array(bytes[offset..<offset + count]) : nil
      }
    }
    let grid16 = item([0, 0, 1, 1, 0x7F, 0xFF, 0x7F, 0xFF])
    XCTAssertEqual(HEIFPictureSizes.canvasPixels(type: "grid", grid16), 32767 * 32767)
    let grid32 = item([0, 1, 0, 0, 0, 0, 0x40, 0, 0, 0, 0x40, 0])
    XCTAssertEqual(HEIFPictureSizes.canvasPixels(type: "grid", grid32), 16384 * 16384)
    let overlay = item([0, 0] + Array(repeating: 0, count: 8) + [0x10, 0, 0x08, 0])
    XCTAssertEqual(HEIFPictureSizes.canvasPixels(type: "iovl", overlay), 4096 * 2048)
    let huge = item([0, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    XCTAssertEqual(HEIFPictureSizes.canvasPixels(type: "grid", huge), 1 << 40, "held, not overflowing")
    XCTAssertNil(HEIFPictureSizes.canvasPixels(type: "grid", item([0, 1, 0, 0, 0, 0])), "cut short")
  }

  /// A `meta` box too large to read cannot be sized, so the file is refused rather than
  /// sized by its ispe alone (security review: a 4 MiB free box inside meta let
  /// coded-bomb.heic through, 1.79 GB).
  func testAMetaBoxTooLargeToReadLeavesTheFileUnsized() {
    let metaSize = HEIFPictureSizes.metaSizeLimit + 64
    let head: [UInt8] = [0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0] + [0, 0, 0, 0]
    let meta: [UInt8] = withUnsafeBytes(of: UInt32(metaSize).bigEndian, Array.init) + Array("meta".utf8)
    let file = head + meta
    let sizes = HEIFPictureSizes(length: file.count + metaSize - 8) { offset, count in
      offset < file.count
        ? Array(file[offset..<min(file.count, offset + count)]) : Array(repeating: 0, count: count)
    }
    XCTAssertNotNil(sizes.unreadable)
  }

  func testABrokenHEICIsRefusedWithItsName() {
    let path = fixturesPath + "/bad/truncated.heic"
    XCTAssertThrowsError(try Thumbnailer().makeThumbnail(path: path, format: .heic)) { error in
      guard case VaultError.decodeFailed(path, let reason) = error else { return XCTFail("\(error)") }
      XCTAssertTrue(reason.contains("outside of file bounds"), reason)
    }
    XCTAssertThrowsError(
      try PhotoDecoder.decode(
        PlaintextBytes(Array(repeating: 0, count: 40)), format: .heic, name: "zeros.heic", minimumSize: nil,
        limits: Thumbnailer())
    ) { error in
      XCTAssertTrue("\(error)".hasPrefix("'zeros.heic': cannot decode image: "), "\(error)")
    }
  }
}
