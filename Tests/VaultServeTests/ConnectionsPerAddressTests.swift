import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import XCTest

@testable import VaultServe

/// One address cannot hold more than its share of connections: a neighbour's idle sockets
/// used to take all 128 slots.
final class ConnectionsPerAddressTests: XCTestCase {
  struct Accepted: ServerChildChannelValue {
    let channel: any Channel
  }

  struct Accepting: ServerChildChannel {
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Accepted> {
      channel.eventLoop.makeSucceededFuture(Accepted(channel: channel))
    }
    func handle(value: Accepted, logger: Logger) async {}
  }

  let logger = Logger(label: "test")

  func connect(
    from address: String, through capped: AddressCappedChannel<Accepting>
  ) throws -> (channel: EmbeddedChannel, admitted: Bool) {
    let channel = EmbeddedChannel()
    try channel.connect(to: SocketAddress(ipAddress: address, port: 40000)).wait()
    let setup = capped.setup(channel: channel, logger: logger)
    channel.embeddedEventLoop.run()
    var admitted = false
    setup.whenSuccess { _ in admitted = true }
    channel.embeddedEventLoop.run()
    return (channel, admitted && channel.isActive)
  }

  func testAnAddressHoldsAtMostItsShareAndGetsSlotsBackWhenConnectionsClose() throws {
    let capped = AddressCappedChannel(
      inner: Accepting(), connections: ConnectionsPerAddress(limit: 3))
    let held = try (0..<3).map { _ in try connect(from: "10.0.0.7", through: capped) }
    XCTAssertTrue(held.allSatisfy(\.admitted))
    let extra = try connect(from: "10.0.0.7", through: capped)
    XCTAssertFalse(extra.admitted)
    XCTAssertFalse(extra.channel.isActive, "closed at once, before any TLS")
    XCTAssertTrue(try connect(from: "10.0.0.8", through: capped).admitted, "another address is not affected")

    _ = try held[0].channel.close().wait()
    held[0].channel.embeddedEventLoop.run()
    XCTAssertEqual(capped.connections.openConnections(of: "10.0.0.7"), 2)
    XCTAssertTrue(try connect(from: "10.0.0.7", through: capped).admitted)
  }

  func testARefusedConnectionDoesNotHoldASlot() throws {
    let capped = AddressCappedChannel(
      inner: Accepting(), connections: ConnectionsPerAddress(limit: 1))
    _ = try connect(from: "10.0.0.7", through: capped)
    for _ in 0..<5 { _ = try connect(from: "10.0.0.7", through: capped) }
    XCTAssertEqual(capped.connections.openConnections(of: "10.0.0.7"), 1)
  }
}
