import NIOCore
import NIOEmbedded
import NIOTLS
import XCTest

@testable import VaultServe

/// A connection that never finishes its TLS handshake is closed, whatever else happens on
/// it, on an embedded event loop whose clock the test moves.
final class HandshakeDeadlineTests: XCTestCase {
  let timeout = TimeAmount.seconds(30)

  func makeChannel() throws -> EmbeddedChannel {
    let channel = EmbeddedChannel(handler: HandshakeDeadline(timeout: timeout))
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    return channel
  }

  func testAConnectionThatNeverShakesHandsIsClosed() throws {
    let channel = try makeChannel()
    channel.embeddedEventLoop.advanceTime(by: timeout - .seconds(1))
    XCTAssertTrue(channel.isActive)
    channel.embeddedEventLoop.advanceTime(by: .seconds(2))
    XCTAssertFalse(channel.isActive)
  }

  /// A stopping server tells every connection to quiesce: that must not cancel the
  /// deadline, or one idle connection keeps the stopping server (and its unlocked space)
  /// alive for ever.
  func testTheQuiesceOfAStoppingServerDoesNotCancelTheDeadline() throws {
    let channel = try makeChannel()
    channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
    channel.embeddedEventLoop.advanceTime(by: timeout + .seconds(1))
    XCTAssertFalse(channel.isActive)
  }

  func testAFinishedHandshakeCancelsTheDeadline() throws {
    let channel = try makeChannel()
    channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: "h2"))
    channel.embeddedEventLoop.advanceTime(by: timeout * 3)
    XCTAssertTrue(channel.isActive)
  }
}
