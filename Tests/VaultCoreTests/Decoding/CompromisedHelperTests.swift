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

}
