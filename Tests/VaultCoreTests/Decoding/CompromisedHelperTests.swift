import Foundation
import XCTest

@testable import VaultCore

/// A helper that was taken over by a crafted file sends what the real one never does; the
/// parent ends it, refuses the file, and keeps nothing the helper handed or asked for.
final class CompromisedHelperTests: XCTestCase {
  private func worker(_ misbehaviour: FakeDecoderHelper.Misbehaviour, deadline: Double = 60) throws
    -> DecoderWorker
  {
    try DecoderWorker(
      limits: DecoderLimits(deadline: deadline), executable: FakeDecoderHelper.make(misbehaviour, test: self))
  }

  private nonisolated static func refusal(_ body: () throws -> Void) -> VaultError? {
    do {
      try body()
      return nil
    } catch {
      return error as? VaultError
    }
  }

  private let malformed = "the decoder sent a malformed reply"

  func testDescriptorsAHelperSendsAreClosedAndItsReplyRefused() throws {
    for count in [1, 2, 5] {
      let pipesBefore = FakeDecoderHelper.openDescriptors(naming: "pipe:").count
      let helper = try worker(.readyWithDescriptors(count: count))
      let error = Self.refusal { try helper.probe() }
      XCTAssertEqual(error, .decoderRefused(path: DecoderExecutable.name, reason: malformed), "\(count)")
      XCTAssertFalse(helper.isAlive, "\(count)")
      XCTAssertEqual(
        FakeDecoderHelper.openDescriptors(naming: "pipe:").count, pipesBefore,
        "no descriptor of the \(count) sent is left open")
    }
  }

  private nonisolated static func analyse(_ helper: DecoderWorker, bytes: [UInt8], name: String) throws {
    _ = try helper.analyse(
      DecoderRequest(
        wants: [.thumbnail, .details], thumbnailer: Thumbnailer(), format: .jpeg, name: name, size: 0,
        delivery: .bytes),
      input: .bytes(PinnedBytes(bytes)), name: name)
  }

  func testSharedMemoryAskedForOutsideAPictureIsRefusedAndNoneIsKept() throws {
    let helper = try worker(.needBuffer(bytes: 128 << 20))
    let error = Self.refusal {
      try Self.analyse(helper, bytes: [0xFF, 0xD8, 0xFF, 0xD9], name: "crafted.jpg")
    }
    XCTAssertEqual(error, .decoderRefused(path: "crafted.jpg", reason: malformed))
    XCTAssertFalse(helper.isAlive)
    XCTAssertEqual(FakeDecoderHelper.openDescriptors(naming: "memfd:vault-picture"), [])
  }

  func testSharedMemoryOfAPictureIsReleasedWhenTheHelperMisbehaves() throws {
    let helper = try worker(.needBuffer(bytes: 1 << 20))
    let error = Self.refusal {
      _ = try helper.picture(
        DecoderRequest(
          wants: [.picture], thumbnailer: Thumbnailer(), format: .jpeg, name: "crafted.jpg", size: 0,
          delivery: .bytes),
        input: .bytes(PinnedBytes([0xFF, 0xD8, 0xFF, 0xD9])), name: "crafted.jpg")
    }
    XCTAssertEqual(error, .decoderRefused(path: "crafted.jpg", reason: malformed))
    XCTAssertEqual(FakeDecoderHelper.openDescriptors(naming: "memfd:vault-picture"), [])
  }

  /// An `analysis` answering `[.thumbnail, .details]`: the thumbnail's fields as
  /// `thumbnail` writes them, then empty details and no Live identifier.
  private static func analysisPayload(thumbnail: (inout ByteWriter) -> Void) -> [UInt8] {
    var writer = ByteWriter()
    writer.byte(1)
    thumbnail(&writer)
    writer.bytes([1, 0, 0, 0, 0])
    return writer.output
  }

  /// The facts after a thumbnail's sides and bytes: orientation 1, no warning, duration or
  /// codec.
  private static let facts: [UInt8] = [1, 0, 0, 0]

  /// A thumbnail of `width`×`height` pixels whose pixels are `count` bytes.
  private static func pixels(width: UInt32, height: UInt32, count: Int) -> [UInt8] {
    analysisPayload { writer in
      for side in [width, height, 4000, 3000] { writer.uint32(side) }
      writer.byteString([UInt8](repeating: 0x7F, count: count))
      writer.bytes(facts)
    }
  }

  /// A helper taken over by a crafted file answers with a thumbnail meant for a decoder in
  /// the parent (a JPEG, as helpers sent before) or with pixels that do not fit what the
  /// request allows: the parent refuses the file in one line before it decodes or copies
  /// any of it, and ends the helper.
  func testAMalformedOrOversizedThumbnailIsRefusedInOneLine() throws {
    let crafted = Self.analysisPayload { writer in
      writer.byteString([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x41, count: 600))
      for side: UInt32 in [64, 48, 4000, 3000] { writer.uint32(side) }
      writer.bytes(Self.facts)
    }
    let replies: [(String, FakeDecoderHelper.Misbehaviour)] = [
      ("a JPEG for the parent to decode", .analysis(payload: crafted)),
      ("fewer pixels than its sides", .analysis(payload: Self.pixels(width: 4, height: 4, count: 47))),
      ("more pixels than its sides", .analysis(payload: Self.pixels(width: 4, height: 4, count: 49))),
      ("a side over the long side", .analysis(payload: Self.pixels(width: 513, height: 1, count: 513 * 3))),
      (
        "a frame longer than a thumbnail can be",
        .analysis(payload: [1], claimed: DecoderAnalysis.frameLimit(longSide: Thumbnailer().longSide) + 1)
      ),
    ]
    for (what, reply) in replies {
      let helper = try worker(reply)
      let error = Self.refusal {
        try Self.analyse(helper, bytes: [0xFF, 0xD8, 0xFF, 0xD9], name: "crafted.jpg")
      }
      XCTAssertEqual(error, .decoderRefused(path: "crafted.jpg", reason: malformed), what)
      XCTAssertEqual(error.map { "\($0)".split(separator: "\n").count }, 1, what)
      XCTAssertFalse(helper.isAlive, what)
    }
  }

  func testAHelperThatStopsReadingIsKilledAtTheDeadline() throws {
    let helper = try worker(.neverReads, deadline: 1)
    // Far more than a socket's buffers hold: the parent's write would block.
    let bytes = [UInt8](repeating: 0xFF, count: 16 << 20)
    let answered = DispatchSemaphore(value: 0)
    final class Outcome: @unchecked Sendable { var error: VaultError? }
    let outcome = Outcome()
    Thread.detachNewThread {
      outcome.error = Self.refusal { try Self.analyse(helper, bytes: bytes, name: "stuck.jpg") }
      answered.signal()
    }
    // A guard only: the deadline is 1 s; a parent stuck in send is freed by killing the
    // helper, and the test fails.
    if answered.wait(timeout: .now() + 300) == .timedOut {
      kill(helper.pid, SIGKILL)
      answered.wait()
      XCTFail("the parent stayed blocked writing to a helper that does not read")
    }
    XCTAssertEqual(outcome.error, .decoderRefused(path: "stuck.jpg", reason: "decoding took more than 1 s"))
  }
}
