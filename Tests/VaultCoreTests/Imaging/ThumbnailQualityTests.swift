import Foundation
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// Compares vault's thumbnails with those of `vipsthumbnail` (Debian libvips-tools), the
/// reference: each must reach a PSNR of at least 30 dB.
final class ThumbnailQualityTests: XCTestCase {
  static let vipsthumbnail = "/usr/bin/vipsthumbnail"
  static let vips = "/usr/bin/vips"
  static let minimumPSNR = 30.0

  func testThumbnailsMatchVipsthumbnail() throws {
    try requireTool(Self.vipsthumbnail)
    let folder = try makeTemporaryFolder(self)
    var inputs: [(String, ImageFormat)] = [
      "photo.jpg", "progressive.jpg", "gray.jpg", "orientation-3.jpg", "orientation-6.jpg",
      "orientation-8.jpg", "quad-420.jpg", "quad-arithmetic.jpg", "quad-restart.jpg",
      "quad-big-app.jpg", "orientation-6-xmp.jpg", "truncated.jpg",
      // Not the CMYK and YCCK ones: without an embedded profile vips converts CMYK through a
      // default press profile, vault through the plain (Adobe, inverted) formula. Their
      // colours are checked against the known drawing in ImagingTests.
    ].map { (fixturesPath + "/" + $0, .jpeg) }
    inputs += ["gray.png", "rgb16.png", "interlaced.png", "palette.png", "rgba.png"].map {
      (fixturesPath + "/" + $0, .png)
    }
    // Big enough to be shrunk, and shrunk through DCT scaling (JPEG) or row by row (PNG).
    let photo = TestImages.photoLike(width: 1600, height: 1200, seed: 7)
    try writeBytes(try JPEGEncoder.encode(photo, quality: 92), to: folder + "/big.jpg")
    inputs.append((folder + "/big.jpg", .jpeg))
    let tall = TestImages.photoLike(width: 700, height: 1000, seed: 9)
    try writeBytes(TestImages.png(tall, interlaced: false), to: folder + "/tall.png")
    inputs.append((folder + "/tall.png", .png))
    // Shrunk from a full-size decode (901×677) and from a half-size one (1101×827), where
    // libjpeg still runs 8×8 IDCTs (all of them, or the chroma's) and upsamples chroma:
    // thumbnails take its fast IDCT and plain upsampling there. 4:2:0 like camera JPEGs,
    // odd sizes for the merged upsampler's last row, photo-like and busy (plasma-like).
    for (name, picture) in [
      ("photo-901", TestImages.photoLike(width: 901, height: 677, seed: 11)),
      ("plasma-901", TestImages.plasmaLike(width: 901, height: 677, seed: 12)),
      ("photo-1101", TestImages.photoLike(width: 1101, height: 827, seed: 13)),
      ("plasma-1101", TestImages.plasmaLike(width: 827, height: 1101, seed: 14)),
    ] {
      try writeBytes(TestImages.png(picture, interlaced: false), to: folder + "/\(name).png")
      try run(
        Self.vips,
        ["jpegsave", folder + "/\(name).png", folder + "/\(name).jpg", "--Q", "92", "--subsample-mode", "on"])
      inputs.append((folder + "/\(name).jpg", .jpeg))
    }

    let referenceFolder = folder + "/vips"
    try FileManager.default.createDirectory(atPath: referenceFolder, withIntermediateDirectories: true)
    for (path, format) in inputs {
      let name = (path as NSString).lastPathComponent
      let stem = (name as NSString).deletingPathExtension
      let ours = try RGBImage.decodeJPEG(
        try Thumbnailer().makeThumbnail(path: path, format: format).jpeg, name: name)
      try run(
        Self.vipsthumbnail,
        ["--size", "512x512>", "-o", referenceFolder + "/%s.jpg[Q=95,background=128]", path])
      let reference = try RGBImage.decodeJPEG(
        try fileBytes(referenceFolder + "/" + stem + ".jpg"), name: name)
      XCTAssertLessThanOrEqual(abs(ours.width - reference.width), 1, name)
      XCTAssertLessThanOrEqual(abs(ours.height - reference.height), 1, name)
      let psnr = TestImages.psnr(
        crop(ours, reference.width, reference.height), crop(reference, ours.width, ours.height))
      XCTAssertGreaterThanOrEqual(psnr, Self.minimumPSNR, "\(name): \(String(format: "%.1f", psnr)) dB")
      print(
        "PSNR against vipsthumbnail: \(name) \(ours.width)×\(ours.height) \(String(format: "%.1f", psnr)) dB")
    }
  }

  private func crop(_ image: RGBImage, _ width: Int, _ height: Int) -> RGBImage {
    let w = min(width, image.width)
    let h = min(height, image.height)
    var pixels: [UInt8] = []
    pixels.reserveCapacity(w * h * 3)
    for y in 0..<h { pixels += image.pixels[(y * image.width * 3)..<((y * image.width + w) * 3)] }
    return RGBImage(width: w, height: h, pixels: pixels)
  }

  private func run(_ tool: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "\(tool) \(arguments)")
  }
}
