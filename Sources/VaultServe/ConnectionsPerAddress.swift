import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// Counts the open connections of each client address (an IPv6 /64 as one, as the
/// `WrongTokenLimiter` does), so that one neighbour's idle sockets cannot take every
/// connection slot the phone needs.
public final class ConnectionsPerAddress: Sendable {
  public static let defaultLimit = 16

  private let counts = Mutex([String: Int]())
  let limit: Int

  public init(limit: Int = ConnectionsPerAddress.defaultLimit) {
    self.limit = limit
  }

  /// Takes a slot for `address`; false when it already holds `limit` of them.
  func admit(_ address: String) -> Bool {
    counts.withLock { counts in
      let open = counts[address, default: 0]
      if open >= limit { return false }
      counts[address] = open + 1
      return true
    }
  }

  func release(_ address: String) {
    counts.withLock { counts in
      let open = counts[address, default: 0]
      counts[address] = open > 1 ? open - 1 : nil
    }
  }

  /// How many connections `address` holds open (for tests).
  public func openConnections(of address: String) -> Int {
    counts.withLock { $0[address, default: 0] }
  }
}

/// A server child channel that is closed at once, before TLS, when its address already
/// holds its share of connections. An address blocked for guessing tokens is still let in:
/// the right token always gets through (on IPv6 the phone may share the guesser's /64).
struct AddressCappedChannel<Inner: ServerChildChannel>: ServerChildChannel {
  typealias Value = Inner.Value

  let inner: Inner
  let connections: ConnectionsPerAddress

  struct Refused: Error {}

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let address = WrongTokenLimiter.key(for: channel.remoteAddress)
    guard connections.admit(address) else {
      channel.close(promise: nil)
      return channel.eventLoop.makeFailedFuture(Refused())
    }
    let connections = connections
    channel.closeFuture.whenComplete { _ in connections.release(address) }
    return inner.setup(channel: channel, logger: logger)
  }

  func handle(value: Value, logger: Logger) async {
    await inner.handle(value: value, logger: logger)
  }
}
