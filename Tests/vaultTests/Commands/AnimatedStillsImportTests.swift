import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// GIF, WebP and AVIF through the built binary, stills and animations made at test time by
/// ImageMagick, ffmpeg (an animated WebP: ImageMagick 6 halves its canvas) and heif-enc (an
/// AVIF with EXIF): added from a folder, listed with their sizes, thumbnails upright from
/// the first frame, dates from EXIF, exported bit for bit, moved by `add --move`; a
/// truncated or hostile one is named on one line and changes nothing.
final class AnimatedStillsImportTests: XCTestCase {
  static let convert = "/usr/bin/convert"
  static let ffmpeg = "/usr/bin/ffmpeg"
  static let heifEnc = "/usr/bin/heif-enc"
  static let avifenc = "/usr/bin/avifenc"

  var folder = ""
  var vault: VaultRunner!
  var photos = ""
  var work = ""

  override func setUpWithError() throws {
    for tool in [Self.convert, Self.ffmpeg, Self.heifEnc] { try requireTool(tool) }
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    photos = folder + "/photos"
    work = folder + "/work"
    for path in [photos, work] {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
  }

  /// Runs a tool in `work`; fails the test when it fails.
  func tool(_ path: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: work)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestFailure("\(path) \(arguments.joined(separator: " ")) failed")
    }
  }

  /// The good files, made in `work`: the 48×32 quadrants (red, green / blue, white) as each
  /// kind, the animations' first frame being the quadrants and their second all blue.
  func makeGoodFiles() throws -> [String] {
    try tool(
      Self.convert,
      [
        "-size", "24x16", "xc:red", "xc:lime", "+append", "(", "-size", "24x16", "xc:blue", "xc:white",
        "+append", ")", "-append", "quad.png",
      ])
    try tool(Self.convert, ["-size", "48x32", "xc:blue", "blue.png"])
    try tool(Self.convert, ["quad.png", "still.gif"])
    try tool(Self.convert, ["-delay", "10", "quad.png", "blue.png", "-loop", "0", "animated.gif"])
    try tool(Self.convert, ["quad.png", "-quality", "80", "lossy.webp"])
    try tool(Self.convert, ["quad.png", "-define", "webp:lossless=true", "lossless.webp"])
    try tool(
      Self.ffmpeg,
      ["-v", "error", "-i", "animated.gif", "-c:v", "libwebp_anim", "-loop", "0", "animated.webp"])
    try tool(Self.convert, ["quad.png", "still.avif"])
    // An AVIF image sequence (brand avis), AV1 through libaom.
    try tool(
      Self.ffmpeg,
      [
        "-v", "error", "-i", "animated.gif", "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-c:v",
        "libaom-av1", "-cpu-used", "8",
        "animated.avif",
      ])
    // A camera's EXIF block (2024:06:01 14:03:22, +02:00), carried over from a JPEG.
    try tool(Self.convert, [fixturesPath + "/taken-offset.jpg", "taken.webp"])
    try tool(Self.heifEnc, ["-A", fixturesPath + "/taken-offset.jpg", "-o", "taken.avif"])
    return [
      "still.gif", "animated.gif", "lossy.webp", "lossless.webp", "animated.webp", "still.avif",
      "animated.avif",
    ]
  }

  func copyToPhotos(_ names: [String]) throws -> [String] {
    try names.map { name in
      try FileManager.default.copyItem(atPath: work + "/" + name, toPath: photos + "/" + name)
      return photos + "/" + name
    }
  }

  func testGIFWebPAndAVIFImportUprightAndExportBitForBit() throws {
    let quadrants = try makeGoodFiles()
    let good = quadrants + ["taken.webp", "taken.avif"]
    _ = try copyToPhotos(good)
    let run = try vault.run(["add", photos])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(
      run.stdout.contains("added \(photoCount(good.count)), skipped 0 duplicates, failed 0"), run.stdout)

    let entries = Dictionary(uniqueKeysWithValues: try vault.listJSON().map { ($0["name"] as! String, $0) })
    XCTAssertEqual(Set(entries.keys), Set(good))
    for name in good {
      XCTAssertEqual(entries[name]?["format"] as? String, (name as NSString).pathExtension, name)
      XCTAssertEqual(
        [entries[name]?["width"] as? Int ?? 0, entries[name]?["height"] as? Int ?? 0], [48, 32], name)
      if let kind = entries[name]?["kind"] { XCTAssertEqual(kind as? String, "photo", name) }
    }
    for name in ["taken.webp", "taken.avif"] {
      XCTAssertEqual(entries[name]?["taken"] as? String, "2024-06-01T14:03:22.25+02:00", name)
    }

    try vault.assertExportsBitForBit(good, from: photos, uprightThumbnails: quadrants)

    // Shown as `view` shows them: decoded from the original.
    for number in 1...good.count {
      let shown = try vault.run(["show", "--mode", "symbols", "--width", "12", "--height", "4", "\(number)"])
      XCTAssertEqual(shown.status, 0, shown.stderr)
      XCTAssertTrue(shown.stdout.contains("  48×32"), shown.stdout)
    }
  }

  /// The decoders say how many frames a file holds, and the first frame is the quadrants.
  func testFrameCountsAndFirstFrames() throws {
    _ = try makeGoodFiles()
    let frames = [
      "still.gif": 1, "animated.gif": 2, "lossy.webp": 1, "lossless.webp": 1, "animated.webp": 2,
      "still.avif": 1, "animated.avif": 2,
    ]
    for (name, count) in frames {
      let bytes = PinnedBytes(try fileBytes(work + "/" + name))
      let format = try XCTUnwrap(ImageFormat.sniff(Array(bytes.buffer.prefix(ImageFormat.signatureLength))))
      let decoder = try FrameDecoders.open(bytes, name: name, format: format)
      XCTAssertEqual(decoder.frameCount, count, name)
      XCTAssertEqual(decoder.isAnimated, count > 1, name)
      XCTAssertEqual([decoder.width, decoder.height], [48, 32], name)
      let frame = try decoder.decodeFirstFrame()
      let topLeft = Array(UnsafeBufferPointer(start: frame.row(8) + 12 * 4, count: 4)).map(Int.init)
      let bottomRight = Array(UnsafeBufferPointer(start: frame.row(24) + 36 * 4, count: 4)).map(Int.init)
      XCTAssertTrue(zip(topLeft, [255, 0, 0, 255]).allSatisfy { abs($0 - $1) < 40 }, "\(name): \(topLeft)")
      XCTAssertTrue(
        zip(bottomRight, [255, 255, 255, 255]).allSatisfy { abs($0 - $1) < 40 }, "\(name): \(bottomRight)")
    }
  }

  /// An AVIF is shown as its irot (quarter turns anti-clockwise) and then its imir (mode 0:
  /// top and bottom exchanged; 1: left and right) say, written by libavif's own encoder.
  func testAVIFIsTurnedAsItsIrotAndImirSay() throws {
    try requireTool(Self.avifenc)
    _ = try makeGoodFiles()
    typealias Quadrants = [[Character]]
    func turnedAntiClockwise(_ q: Quadrants) -> Quadrants { [[q[0][1], q[1][1]], [q[0][0], q[1][0]]] }
    var expected: [String: (size: [Int], quadrants: Quadrants)] = [:]
    for turns in 0...3 {
      for mirror in [-1, 0, 1] {
        let name = "turned-\(turns)-\(mirror).avif"
        var arguments = ["--irot", "\(turns)"]
        if mirror >= 0 { arguments += ["--imir", "\(mirror)"] }
        try tool(Self.avifenc, arguments + ["quad.png", name])
        var quadrants: Quadrants = [["R", "G"], ["B", "W"]]
        for _ in 0..<turns { quadrants = turnedAntiClockwise(quadrants) }
        if mirror == 0 { quadrants.reverse() }
        if mirror == 1 { quadrants = quadrants.map { $0.reversed() } }
        expected[name] = (turns % 2 == 0 ? [48, 32] : [32, 48], quadrants)
      }
    }
    let run = try vault.run(["add"] + copyToPhotos(expected.keys.sorted()))
    XCTAssertEqual(run.status, 0, run.stderr)
    let entries = Dictionary(uniqueKeysWithValues: try vault.listJSON().map { ($0["name"] as! String, $0) })
    XCTAssertEqual(try vault.run(["export", "--all", "--thumbs", "--to", "thumbs"]).status, 0)
    let colours: [Character: [Int]] = [
      "R": [255, 0, 0], "G": [0, 255, 0], "B": [0, 0, 255], "W": [255, 255, 255],
    ]
    for (name, (size, quadrants)) in expected {
      XCTAssertEqual(
        [entries[name]?["width"] as? Int ?? 0, entries[name]?["height"] as? Int ?? 0], size, name)
      let jpeg = try fileBytes(folder + "/thumbs/" + (name as NSString).deletingPathExtension + ".jpg")
      let image = try RGBImage.decodeJPEG(jpeg, name: name)
      XCTAssertEqual([image.width, image.height], size, name)
      for (row, column) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let (x, y) = (image.width * (1 + 2 * column) / 4, image.height * (1 + 2 * row) / 4)
        let pixel = image.pixels[(y * image.width + x) * 3..<(y * image.width + x) * 3 + 3].map(Int.init)
        let wanted = colours[quadrants[row][column]]!
        XCTAssertTrue(
          zip(pixel, wanted).allSatisfy { abs($0 - $1) < 40 }, "\(name) at \(row),\(column): \(pixel)")
      }
    }
  }

  /// An interlaced GIF's rows (stored every 8th from 0, every 8th from 4, every 4th from 2,
  /// then every 2nd from 1) land where a plain GIF of the same picture puts them.
  func testAnInterlacedGIFDecodesAsAPlainOne() throws {
    try tool(
      Self.convert, ["-size", "64x48", "-seed", "3", "plasma:", "+dither", "-colors", "256", "plasma.png"])
    try tool(Self.convert, ["plasma.png", "-interlace", "none", "plain.gif"])
    try tool(Self.convert, ["plasma.png", "-interlace", "GIF", "interlaced.gif"])
    let plain = try GIFDecoder(pinned: PinnedBytes(try fileBytes(work + "/plain.gif")), name: "plain")
    let interlaced = try GIFDecoder(
      pinned: PinnedBytes(try fileBytes(work + "/interlaced.gif")), name: "interlaced")
    XCTAssertNotEqual(try fileBytes(work + "/plain.gif"), try fileBytes(work + "/interlaced.gif"))
    let (plainFrame, interlacedFrame) = (try plain.decodeFirstFrame(), try interlaced.decodeFirstFrame())
    XCTAssertEqual(Array(plainFrame.pixels), Array(interlacedFrame.pixels))
  }

  /// Broken and hostile files, each with what its one line must say.
  func makeBadFiles() throws -> [(name: String, reason: String)] {
    var bad: [(String, String)] = []
    for name in ["still.gif", "lossy.webp", "lossless.webp", "animated.webp", "still.avif"] {
      let bytes = try fileBytes(work + "/" + name)
      try writeBytes(Array(bytes.prefix(bytes.count * 2 / 3)), to: work + "/truncated-" + name)
      bad.append(("truncated-" + name, "the file ends too early (truncated)"))
    }
    // Damaged picture data, whole files: the decoders (dav1d too) must say nothing of their own.
    var avifData = try fileBytes(work + "/still.avif")
    let mdat = try XCTUnwrap(
      (0..<avifData.count - 4).first { avifData[$0..<$0 + 4].elementsEqual("mdat".utf8) })
    for index in (mdat + 4)..<avifData.count { avifData[index] ^= 0x5A }
    try writeBytes(avifData, to: work + "/damaged.avif")
    bad.append(("damaged.avif", "decoding of color planes failed"))
    var webpData = try fileBytes(work + "/lossy.webp")
    for index in 40..<webpData.count { webpData[index] ^= 0x5A }
    try writeBytes(webpData, to: work + "/damaged.webp")
    bad.append(("damaged.webp", "damaged WebP"))
    var gifData = try fileBytes(work + "/still.gif")
    for index in (gifData.count - 20)..<(gifData.count - 2) { gifData[index] ^= 0x33 }
    try writeBytes(gifData, to: work + "/damaged.gif")
    bad.append(("damaged.gif", "cannot decode image"))
    // A screen of 60000×60000 in the GIF's header.
    var gif = try fileBytes(work + "/still.gif")
    gif.replaceSubrange(6..<10, with: [0x60, 0xEA, 0x60, 0xEA])
    try writeBytes(gif, to: work + "/huge.gif")
    bad.append(("huge.gif", "image of 60000×60000 pixels is over the limit of 200 megapixels"))
    // 100000 frames of one pixel each, on a 200×200 screen: 1.5 MB that would draw 4 gigapixels.
    let still = try fileBytes(work + "/still.gif")
    let table = still[10] & 0x80 == 0 ? 0 : 3 << (Int(still[10] & 7) + 1)
    var header = Array(still.prefix(13 + table))
    header.replaceSubrange(6..<10, with: [200, 0, 200, 0])
    let frame: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0]
    try writeBytes(
      header + Array([[UInt8]](repeating: frame, count: 100_000).joined()) + [0x3B], to: work + "/frames.gif")
    bad.append(("frames.gif", "its 100000 frames of 200×200 pixels are over the limit of 1000 megapixels"))
    // The animated WebP's canvas (VP8X, 24-bit width and height minus one) made 60000×60000.
    var webp = try fileBytes(work + "/animated.webp")
    webp.replaceSubrange(24..<30, with: [0x5F, 0xEA, 0x00, 0x5F, 0xEA, 0x00])
    try writeBytes(webp, to: work + "/huge.webp")
    bad.append(("huge.webp", "image of 60000×60000 pixels is over the limit of 200 megapixels"))
    // A GIF too large to be read into memory before its header is checked.
    try writeBytes(still + [UInt8](repeating: 0, count: 64 << 20), to: work + "/long.gif")
    bad.append(("long.gif", "a GIF file of more than 64 MiB is not imported"))
    // The animated WebP on a 10000×10000 canvas (within the pixel limit), its frames
    // repeated to 12: 1.2 gigapixels to play.
    var frames = try fileBytes(work + "/animated.webp")
    let anmf = try XCTUnwrap((0..<frames.count - 4).first { frames[$0..<$0 + 4].elementsEqual("ANMF".utf8) })
    let anmfLength = 8 + frames[anmf + 4..<anmf + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
    let chunk = Array(frames[anmf..<anmf + anmfLength + anmfLength % 2])
    frames.replaceSubrange(24..<30, with: [0x0F, 0x27, 0x00, 0x0F, 0x27, 0x00])
    frames += Array([[UInt8]](repeating: chunk, count: 10).joined())
    let riff = UInt32(frames.count - 8)
    frames.replaceSubrange(4..<8, with: (0..<4).map { UInt8(truncatingIfNeeded: riff >> (8 * $0)) })
    try writeBytes(frames, to: work + "/frames.webp")
    bad.append(("frames.webp", "its 12 frames of 10000×10000 pixels are over the limit of 1000 megapixels"))
    // The AVIF's ispe box saying 60000×60000.
    var avif = try fileBytes(work + "/still.avif")
    let ispe = try XCTUnwrap((0..<avif.count - 4).first { avif[$0..<$0 + 4].elementsEqual("ispe".utf8) })
    avif.replaceSubrange(ispe + 8..<ispe + 16, with: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60])
    try writeBytes(avif, to: work + "/huge.avif")
    bad.append(("huge.avif", "dimensions are too large [60000x60000]"))
    return bad
  }

  func testTruncatedAndHostileFilesAreNamedAndChangeNothing() throws {
    let good = try makeGoodFiles()
    let bad = try makeBadFiles()
    XCTAssertEqual(try vault.run(["add"] + copyToPhotos([good[0]])).status, 0)
    let before = try snapshot(vault.vault)
    let badPaths = try copyToPhotos(bad.map(\.name))
    let refused = try vault.run(["add"] + badPaths)
    XCTAssertEqual(refused.status, 1, refused.stderr)
    XCTAssertEqual(try snapshot(vault.vault), before)
    var lines = refused.stderr.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.popLast(), "error: \(bad.count) files could not be imported")
    XCTAssertEqual(lines.count, bad.count, refused.stderr)
    for (name, reason) in bad {
      let named = lines.filter { $0.hasPrefix("error: '\(photos)/\(name)': ") }
      XCTAssertEqual(named.count, 1, "\(name): \(refused.stderr)")
      XCTAssertTrue(named.first?.contains(reason) == true, "\(name): \(named)")
    }

    // In a folder beside good files, the good ones go in.
    let batch = folder + "/batch"
    try FileManager.default.createDirectory(atPath: batch, withIntermediateDirectories: true)
    for name in bad.map(\.name) + good.dropFirst() {
      try FileManager.default.copyItem(atPath: work + "/" + name, toPath: batch + "/" + name)
    }
    let mixed = try vault.run(["add", batch])
    XCTAssertEqual(mixed.status, 1, mixed.stderr)
    XCTAssertTrue(
      mixed.stdout.contains("added \(photoCount(good.count - 1)), skipped 0 duplicates, failed \(bad.count)"),
      mixed.stdout)
    XCTAssertEqual(try vault.listJSON().count, good.count)
  }

  /// A GIF whose encoder left out the trailer (the last byte, 0x3B) is read as browsers
  /// read it; one cut inside its picture data is truncated.
  func testAGIFWithoutItsTrailerIsAGIF() throws {
    _ = try makeGoodFiles()
    let gif = try fileBytes(work + "/animated.gif")
    XCTAssertEqual(gif.last, 0x3B)
    try writeBytes(Array(gif.dropLast()), to: photos + "/no-trailer.gif")
    try writeBytes(Array(gif.dropLast(3)), to: photos + "/cut.gif")
    let run = try vault.run(["add", photos + "/no-trailer.gif", photos + "/cut.gif"])
    XCTAssertEqual(run.status, 1)
    XCTAssertEqual(
      run.stderr,
      "error: '\(photos)/cut.gif': cannot decode image: the file ends too early (truncated)\n"
        + "error: 1 file could not be imported\n")
    XCTAssertEqual(try vault.listJSON().map { $0["name"] as? String }, ["no-trailer.gif"])
  }

  func testAddMoveMovesThem() throws {
    let good = try makeGoodFiles()
    let paths = try copyToPhotos(good)
    let run = try vault.run(["add", "--move", photos])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.stdout.contains("removed \(good.count) source files"), run.stdout)
    for path in paths { XCTAssertFalse(FileManager.default.fileExists(atPath: path), path) }
    XCTAssertEqual(try vault.listJSON().count, good.count)
  }
}
