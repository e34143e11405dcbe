import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// The playing messages (`playing`, `frame`, `frame size`, `frame decoded`) read as bytes
/// from the other side: what one side writes reads back as it was, and random or extreme
/// bytes never trap and are accepted only within bounds.
final class DecoderPlayingMessageTests: XCTestCase {
  private func side(_ random: inout SeededGenerator) -> Int {
    Int.random(in: 1...Int(Int32.max), using: &random)
  }

  /// A time in `range`, half the time within the playing messages' limit (and its ends and
  /// the extremes among them), so that both sides of the bound are met.
  private static func time(in range: ClosedRange<Int64>, _ random: inout SeededGenerator) -> Int64 {
    let limit = DecoderMovingFrame.timeLimit
    let near = [range.lowerBound, range.upperBound, limit, limit + 1, -limit, -limit - 1].filter(
      range.contains)
    switch Int.random(in: 0..<4, using: &random) {
    case 0: return near.randomElement(using: &random)!
    case 1:
      return Int64.random(in: max(range.lowerBound, -limit)...min(range.upperBound, limit), using: &random)
    default: return Int64.random(in: range, using: &random)
    }
  }

  func testWhatIsWrittenReadsBackAndRandomBytesNeverTrap() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<2000 {
      let size = PixelSize(width: side(&random), height: side(&random))
      let timeLimit = DecoderMovingFrame.timeLimit
      let duration = Bool.random(using: &random) ? Self.time(in: 0...Int64.max, &random) : nil
      let playing = DecoderPlaying(shownSize: size, durationMicroseconds: duration)
      XCTAssertEqual(
        DecoderPlaying.parse(playing.payload), (duration ?? 0) <= timeLimit ? .some(.some(playing)) : .none,
        "seed \(seed)")
      // Times past the limit either way are refused: the player adds and subtracts them.
      let time = Self.time(in: Int64.min...Int64.max, &random)
      let timeInBounds = (-timeLimit...timeLimit).contains(time)
      for frame in [
        DecoderMovingFrame.end, .frame(microseconds: time, size: nil), .frame(microseconds: time, size: size),
      ] {
        XCTAssertEqual(
          DecoderMovingFrame.parse(frame.payload), timeInBounds || frame == .end ? frame : nil, "seed \(seed)"
        )
      }
      XCTAssertEqual(
        DecoderFrameTime.parse(DecoderFrameTime.payload(time)), timeInBounds ? time : nil, "seed \(seed)")
      let limit = Int.random(in: 3...1 << 40, using: &random)
      let asked = DecoderFrameSize.parse(DecoderFrameSize.payload(size), byteLimit: limit)
      XCTAssertEqual(asked, size.width * size.height <= limit / 3 ? .some(size) : .none, "seed \(seed)")
      let bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      _ = DecoderPlaying.parse(bytes)
      _ = DecoderMovingFrame.parse(bytes)
      _ = DecoderFrameTime.parse(bytes)
      _ = DecoderFrameSize.parse(bytes, byteLimit: limit)
    }
  }

  /// The fuzzer's find: a frame size larger than the animation, which its resampler cannot
  /// make (a trap in the helper), is a broken protocol: the helper stops answering.
  func testAFrameSizeLargerThanThePictureEndsTheExchange() throws {
    try requireTool("/usr/bin/convert")
    let gif = try makeTemporaryFolder(self) + "/blink.gif"
    let make = Process()
    make.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
    make.arguments = ["-delay", "30", "-size", "8x6", "xc:red", "-delay", "50", "xc:blue", "-loop", "0", gif]
    try make.run()
    make.waitUntilExit()
    let bytes = PinnedBytes(Array(try Data(contentsOf: URL(fileURLWithPath: gif))))
    var sockets: [Int32] = [-1, -1]
    XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets), 0)
    defer { for descriptor in sockets { close(descriptor) } }
    let (parent, helper) = (DecoderChannel(descriptor: sockets[0]), DecoderChannel(descriptor: sockets[1]))
    let request = DecoderRequest(
      wants: [], thumbnailer: Thumbnailer(), format: .gif, name: "blink.gif", size: Int64(bytes.count),
      delivery: .bytes)
    try parent.send(DecoderFrame(.play, request.payload), deadline: nil)
    try parent.send(DecoderFrame(.file), trailing: UnsafeRawBufferPointer(bytes.buffer), deadline: nil)
    var playing: DecoderPlayingSession?
    try DecoderService.answer(
      try helper.receive(), on: helper, playing: &playing, pixels: SharedPixelTarget()
    ) { _ in }
    XCTAssertEqual(try parent.receive().kind, .playing)
    try parent.send(DecoderFrame(.nextFrame), deadline: nil)
    try parent.send(
      DecoderFrame(.frameSize, DecoderFrameSize.payload(PixelSize(width: 9, height: 6))), deadline: nil)
    XCTAssertThrowsError(
      try DecoderService.answer(
        try helper.receive(), on: helper, playing: &playing, pixels: SharedPixelTarget()
      ) { _ in })
    XCTAssertEqual(try parent.receive().kind, .frameDecoded)
  }

  /// The fuzzer's find: sides of 2³² − 1 overflowed the size check (a trap in the helper).
  func testAFrameSizeOfTheLargestSidesIsRefusedWithoutATrap() {
    let largest = [UInt8](repeating: 0xFF, count: 8)
    XCTAssertEqual(DecoderFrameSize.parse(largest, byteLimit: 512 << 20), .none)
    XCTAssertEqual(DecoderFrameSize.parse([0, 0, 0, 0, 0, 0, 0, 1], byteLimit: 512 << 20), .none)
    XCTAssertEqual(DecoderFrameSize.parse([UInt8](repeating: 0, count: 8), byteLimit: 3), .some(nil))
  }
}
