import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// The parent reads a helper's replies as untrusted bytes: random ones never trap and are
/// accepted only when every field is in bounds, and what a helper encodes reads back as it
/// was.
final class DecoderReplyTests: XCTestCase {
  private struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state ^ (state >> 29)
    }
  }

  private func text(_ random: inout Generator, count: Int) -> String {
    let pieces = ["a", "é", "日", "🙂", " ", "\u{301}", "Z", "0"]
    return (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
  }

  private func analysis(_ random: inout Generator) -> DecoderAnalysis {
    let (thumbnailWidth, thumbnailHeight) = (
      Int.random(in: 1...40, using: &random), Int.random(in: 1...40, using: &random)
    )
    let thumbnail = ThumbnailPicture(
      image: RGBImage(
        width: thumbnailWidth, height: thumbnailHeight,
        pixels: (0..<thumbnailWidth * thumbnailHeight * 3).map { _ in
          UInt8.random(in: 0...255, using: &random)
        }),
      width: Int.random(in: 1...100_000, using: &random), height: Int.random(in: 1...100_000, using: &random),
      orientation: Int.random(in: 1...8, using: &random),
      warning: Bool.random(using: &random) ? text(&random, count: 20) : nil,
      durationMicroseconds: Bool.random(using: &random) ? Int64.random(in: 0...1 << 40, using: &random) : nil,
      codec: Bool.random(using: &random) ? "hevc" : nil)
    let taken = CaptureTime(
      localSeconds: Int64.random(in: -1 << 40...1 << 40, using: &random),
      nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &random),
      utcOffsetMinutes: Bool.random(using: &random) ? Int16.random(in: -1439...1439, using: &random) : nil)
    let details = PhotoDetails(
      taken: Bool.random(using: &random) ? taken : nil,
      cameraMake: Bool.random(using: &random) ? text(&random, count: 5) : nil,
      cameraModel: Bool.random(using: &random) ? "Model \(Int.random(in: 0...99, using: &random))" : nil)
    return DecoderAnalysis(
      thumbnail: thumbnail, details: details,
      liveIdentifier: Bool.random(using: &random) ? "ID-\(Int.random(in: 0...9999, using: &random))" : nil)
  }

  func testEncodedAnalysesReadBackAndMutatedOnesNeverTrap() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = Generator(state: seed)
    let request = DecoderRequest(
      wants: [.thumbnail, .details, .liveIdentifier], thumbnailer: Thumbnailer(), format: .jpeg,
      name: "x.jpg",
      size: 1, delivery: .bytes)
    for _ in 0..<2000 {
      let sent = analysis(&random)
      let payload = sent.payload
      let read = DecoderAnalysis(payload: payload, answering: request)
      XCTAssertEqual(read?.thumbnail?.image, sent.thumbnail?.image, "seed \(seed)")
      XCTAssertEqual(read?.thumbnail?.width, sent.thumbnail?.width, "seed \(seed)")
      XCTAssertEqual(read?.details, sent.details, "seed \(seed)")
      XCTAssertEqual(read?.liveIdentifier, sent.liveIdentifier, "seed \(seed)")
      // Bytes flipped, cut or added: read or refused, never a trap; and never with a
      // field out of its bounds.
      var mutated = payload
      switch Int.random(in: 0...2, using: &random) {
      case 0:
        for _ in 0..<Int.random(in: 1...4, using: &random) {
          mutated[Int.random(in: 0..<mutated.count, using: &random)] = UInt8.random(
            in: 0...255, using: &random)
        }
      case 1: mutated = Array(mutated.prefix(Int.random(in: 0..<mutated.count, using: &random)))
      default: mutated += [UInt8.random(in: 0...255, using: &random)]
      }
      if let odd = DecoderAnalysis(payload: mutated, answering: request), let thumbnail = odd.thumbnail {
        XCTAssert((1...8).contains(thumbnail.orientation), "seed \(seed)")
        XCTAssert((1...512).contains(thumbnail.image.width), "seed \(seed)")
        XCTAssertEqual(thumbnail.image.pixels.count, thumbnail.image.width * thumbnail.image.height * 3)
      }
      _ = DecoderFailure.error(from: mutated, path: "x.jpg", memoryLimit: 512 << 20)
      _ = DecoderPicture(payload: mutated, byteCount: 30)
      _ = DecoderReadRequest(mutated, size: 1 << 20)
      _ = DecoderFrame(body: mutated)
    }
  }

  /// The frame limits come from one place: the largest frame a side sends but a file (an
  /// answer to the largest `read`, the analysis of the largest thumbnail a request may ask
  /// for) is within what the other side accepts.
  func testTheLargestFramesEachSideSendsAreAccepted() {
    let data = DecoderFrame(.data, [UInt8](repeating: 1, count: DecoderInput.readLimit)).encoded
    XCTAssertEqual(DecoderFrame.bodyLength(Array(data.prefix(4))), DecoderInput.readLimit + 1)
    let side = RGBImage.thumbnailSideLimit
    let largest = ThumbnailPicture(
      image: RGBImage(width: side, height: side, pixels: [UInt8](repeating: 1, count: side * side * 3)),
      width: side, height: side, orientation: 1,
      warning: String(repeating: "w", count: DecoderAnalysis.textLimit),
      codec: String(repeating: "c", count: 64))
    let details = PhotoDetails(
      cameraMake: String(repeating: "m", count: PhotoDetails.textLimit),
      cameraModel: String(repeating: "m", count: PhotoDetails.textLimit))
    let analysis = DecoderFrame(
      .analysis,
      DecoderAnalysis(
        thumbnail: largest, details: details, liveIdentifier: String(repeating: "L", count: 100)
      ).payload
    ).encoded
    XCTAssertNotNil(DecoderFrame.bodyLength(Array(analysis.prefix(4))))
    XCTAssertNotNil(
      DecoderFrame.bodyLength(
        Array(analysis.prefix(4)), limit: DecoderAnalysis.frameLimit(longSide: side)))
  }

  /// A compromised helper's picture of the largest sides a reply allows (2³¹ − 1 each): the
  /// parent's check of its byte count must refuse it, not overflow (a trap in vault).
  func testAPictureOfTheLargestSidesIsRefusedWithoutATrap() {
    var writer = ByteWriter()
    for _ in 0..<4 { writer.uint32(UInt32(Int32.max)) }
    writer.byte(1)
    PhotoDetails().encode(into: &writer)
    XCTAssertNil(DecoderPicture(payload: writer.output, byteCount: 512 << 20))
  }

  func testAReadOutsideTheFileOrOverTheLimitIsRefused() {
    func read(_ offset: Int64, _ count: UInt32) -> [UInt8] {
      var writer = ByteWriter()
      writer.int64(offset)
      writer.uint32(count)
      return writer.output
    }
    XCTAssertEqual(DecoderReadRequest(read(10, 100), size: 50)?.count, 40)
    XCTAssertNil(DecoderReadRequest(read(51, 1), size: 50))
    XCTAssertNil(DecoderReadRequest(read(-1, 1), size: 50))
    XCTAssertNil(DecoderReadRequest(read(0, UInt32(DecoderInput.readLimit + 1)), size: 1 << 30))
  }
}
