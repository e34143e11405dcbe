import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The open connections, by client address (an IPv6 /64 as one, as the `WrongTokenLimiter`
/// does) and by whether they have shown the right token, so that neither one neighbour's
/// idle sockets nor a few neighbours' together can take every connection slot the phone
/// needs:
///
/// - one address holds at most `limit` connections;
/// - when `total` are open (the server accepts no more), a newcomer closes one connection
///   that never showed the token: the oldest of the address that holds most of those. The
///   phone's connections, once they have asked for the page or an upload, are never
///   closed; a phone that has just connected is not taken while a busier address has
///   connections to lose.
public final class ConnectionsPerAddress: Sendable {
  public static let defaultLimit = 16

  private struct Connection {
    let channel: any Channel
    let address: String
    /// When it was admitted, in admissions: the oldest is closed first.
    let order: Int
    var showedToken = false
    /// Chosen to make room: it counts until it has closed, but is not chosen again.
    var closing = false
  }

  private struct Table {
    var byAddress: [String: Int] = [:]
    var open: [ObjectIdentifier: Connection] = [:]
    var admitted = 0
  }

  private let table = Mutex(Table())
  let limit: Int
  let total: Int

  public init(limit: Int = ConnectionsPerAddress.defaultLimit, total: Int = Int.max) {
    self.limit = limit
    self.total = total
  }

  /// Takes a slot for `channel`, from `address`; false when the address already holds
  /// `limit` of them. When the table is full, closes a connection that never showed the
  /// token (not this one).
  func admit(_ channel: any Channel, from address: String) -> Bool {
    let admission = table.withLock { table -> Admission in
      let open = table.byAddress[address, default: 0]
      if open >= limit { return .refused }
      table.byAddress[address] = open + 1
      table.admitted += 1
      table.open[ObjectIdentifier(channel)] = Connection(
        channel: channel, address: address, order: table.admitted)
      guard table.open.count >= total, let victim = Self.evictable(in: table, sparing: channel) else {
        return .admitted(closing: nil)
      }
      table.open[ObjectIdentifier(victim)]?.closing = true
      return .admitted(closing: victim)
    }
    guard case .admitted(let closing) = admission else { return false }
    closing?.close(promise: nil)
    return true
  }

  private enum Admission {
    case refused
    case admitted(closing: (any Channel)?)
  }

  /// The oldest connection without the token of the address that holds most of them (the
  /// newcomer counted, but not taken).
  private static func evictable(in table: Table, sparing newcomer: any Channel) -> (any Channel)? {
    let withoutToken = table.open.values.filter { !$0.showedToken && !$0.closing }
    var perAddress: [String: Int] = [:]
    for connection in withoutToken { perAddress[connection.address, default: 0] += 1 }
    let victim = withoutToken.filter { $0.channel !== newcomer }.min { a, b in
      let (countA, countB) = (perAddress[a.address]!, perAddress[b.address]!)
      return countA != countB ? countA > countB : a.order < b.order
    }
    return victim?.channel
  }

  func release(_ channel: any Channel) {
    table.withLock { table in
      guard let connection = table.open.removeValue(forKey: ObjectIdentifier(channel)) else { return }
      let open = table.byAddress[connection.address, default: 0]
      table.byAddress[connection.address] = open > 1 ? open - 1 : nil
    }
  }

  /// Notes that a request on `connection` (the TCP connection, not an HTTP/2 stream) came
  /// with the right token.
  func noteTokenShown(on connection: any Channel) {
    table.withLock { $0.open[ObjectIdentifier(connection)]?.showedToken = true }
  }

  /// Whether a request on `connection` has ever come with the right token.
  func hasShownToken(_ connection: any Channel) -> Bool {
    table.withLock { $0.open[ObjectIdentifier(connection)]?.showedToken ?? false }
  }

  /// How many connections `address` holds open (for tests).
  public func openConnections(of address: String) -> Int {
    table.withLock { $0.byAddress[address, default: 0] }
  }

  /// How many connections are open (for tests).
  public var openConnections: Int { table.withLock { $0.open.count } }
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
    guard connections.admit(channel, from: address) else {
      channel.close(promise: nil)
      return channel.eventLoop.makeFailedFuture(Refused())
    }
    let connections = connections
    channel.closeFuture.whenComplete { _ in connections.release(channel) }
    return inner.setup(channel: channel, logger: logger)
  }

  func handle(value: Value, logger: Logger) async {
    await inner.handle(value: value, logger: logger)
  }
}
