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
    setup.assumeIsolated().whenSuccess { _ in admitted = true }
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

  /// 8 addresses × 16 connections once held all 128 slots for as long as they liked. When
  /// the table is full, a newcomer closes a connection that never showed the token, from the
  /// address that holds most of those; connections that showed it are never closed.
  func testAFullTableClosesAConnectionWithoutTheTokenFromTheBusiestAddress() throws {
    let connections = ConnectionsPerAddress(limit: 4, total: 7)
    let capped = AddressCappedChannel(inner: Accepting(), connections: connections)
    let phone = try connect(from: "10.0.0.1", through: capped)
    connections.noteTokenShown(on: phone.channel)
    let neighbours = try (0..<2).map { _ in try connect(from: "10.0.0.2", through: capped) }
    let guessers = try (0..<4).map { _ in try connect(from: "10.0.0.3", through: capped) }
    XCTAssertTrue(([phone] + neighbours + guessers).allSatisfy(\.admitted))
    // Each embedded channel runs its own loop: a close is counted once its loop runs.
    for connection in [phone] + neighbours + guessers { connection.channel.embeddedEventLoop.run() }
    // Full as the last was admitted (the server would accept no more): the guessers'
    // oldest made room for the next one.
    XCTAssertFalse(guessers[0].channel.isActive)
    XCTAssertTrue(guessers[1...].allSatisfy { $0.channel.isActive })
    XCTAssertEqual(connections.openConnections, 6)

    // The phone's next connection gets in; the busiest address loses another.
    let phoneAgain = try connect(from: "10.0.0.1", through: capped)
    XCTAssertTrue(phoneAgain.admitted && phoneAgain.channel.isActive)
    XCTAssertFalse(guessers[1].channel.isActive)
    XCTAssertTrue(phone.channel.isActive, "a connection that showed the token is never closed")
    XCTAssertTrue(neighbours.allSatisfy { $0.channel.isActive })
  }

  /// When every other connection has shown the token, nothing is closed: the newcomer waits
  /// its turn as before.
  func testConnectionsThatShowedTheTokenAreNeverClosedForANewcomer() throws {
    let connections = ConnectionsPerAddress(limit: 4, total: 3)
    let capped = AddressCappedChannel(inner: Accepting(), connections: connections)
    let phones = try (0..<2).map { _ in try connect(from: "10.0.0.1", through: capped) }
    for phone in phones { connections.noteTokenShown(on: phone.channel) }
    let newcomer = try connect(from: "10.0.0.9", through: capped)
    XCTAssertTrue(newcomer.admitted && newcomer.channel.isActive)
    XCTAssertTrue(phones.allSatisfy { $0.channel.isActive })
    XCTAssertTrue(connections.hasShownToken(phones[0].channel))
    XCTAssertFalse(connections.hasShownToken(newcomer.channel))
  }

  func testARefusedConnectionDoesNotHoldASlot() throws {
    let capped = AddressCappedChannel(
      inner: Accepting(), connections: ConnectionsPerAddress(limit: 1))
    _ = try connect(from: "10.0.0.7", through: capped)
    for _ in 0..<5 { _ = try connect(from: "10.0.0.7", through: capped) }
    XCTAssertEqual(capped.connections.openConnections(of: "10.0.0.7"), 1)
  }
}
