import Foundation
import NIOCore
import Synchronization

/// Counts requests without the right token per client address; an address that has made
/// `allowedFailures` of them gets 429 for every request for `blockSeconds`.
///
/// The table is bounded: entries expire `blockSeconds` after their last failure, and when
/// `capacity` addresses are tracked, a failure from an address not in the table is refused
/// as if it were blocked (a flood of addresses can neither grow memory nor push a blocked
/// address out of the table).
public final class WrongTokenLimiter: Sendable {
  public static let allowedFailures = 20
  public static let blockSeconds = 60.0
  public static let defaultCapacity = 4096

  public enum Verdict: Equatable, Sendable {
    case allowed
    case blocked
  }

  private struct Entry {
    var failures: Int
    var lastFailure: Double
    var blockedUntil: Double?
  }

  private struct State {
    var entries: [String: Entry] = [:]
    var lastPrune = -Double.infinity
  }

  private let state = Mutex(State())
  private let capacity: Int
  private let clock: @Sendable () -> Double

  /// `clock` gives seconds on a monotonic scale (tests pass their own).
  public init(
    capacity: Int = WrongTokenLimiter.defaultCapacity,
    clock: @escaping @Sendable () -> Double = WrongTokenLimiter.monotonicSeconds
  ) {
    self.capacity = capacity
    self.clock = clock
  }

  /// Whether a request from `address` is answered at all (before its token is looked at).
  public func verdict(for address: String) -> Verdict {
    let now = clock()
    return state.withLock { state in
      guard let entry = state.entries[address], let until = entry.blockedUntil else { return .allowed }
      if now < until { return .blocked }
      state.entries[address] = nil
      return .allowed
    }
  }

  /// Records a request without the right token from `address`; says whether the address is
  /// blocked from now on.
  @discardableResult
  public func recordFailure(from address: String) -> Verdict {
    let now = clock()
    return state.withLock { state in
      if state.entries[address] == nil, state.entries.count >= capacity {
        prune(&state, now: now)
        if state.entries.count >= capacity { return .blocked }
      }
      var entry = state.entries[address] ?? Entry(failures: 0, lastFailure: now, blockedUntil: nil)
      if now - entry.lastFailure > Self.blockSeconds { entry.failures = 0 }
      entry.failures += 1
      entry.lastFailure = now
      if entry.failures >= Self.allowedFailures, entry.blockedUntil == nil {
        entry.blockedUntil = now + Self.blockSeconds
      }
      state.entries[address] = entry
      return entry.blockedUntil == nil ? .allowed : .blocked
    }
  }

  /// How many addresses the table holds (for tests).
  public var trackedAddresses: Int { state.withLock { $0.entries.count } }

  /// Drops entries that no longer block and whose failures are too old to count; at most
  /// once a second, so a flood does not make every request scan the table.
  private func prune(_ state: inout State, now: Double) {
    guard now - state.lastPrune >= 1 else { return }
    state.lastPrune = now
    state.entries = state.entries.filter { _, entry in
      if let until = entry.blockedUntil { return now < until }
      return now - entry.lastFailure <= Self.blockSeconds
    }
  }

  /// The key an address is counted under: the IPv4 address, or the /64 network of an IPv6
  /// one (a single IPv6 host usually has a whole /64 to pick addresses from). An
  /// IPv4-mapped address (`::ffff:a.b.c.d`, how a socket bound to `::` sees IPv4 clients)
  /// is keyed as the IPv4 address it carries: its /64 is the same for every IPv4 client.
  public static func key(for address: SocketAddress?) -> String {
    switch address {
    case .v4?:
      return address?.ipAddress ?? "unknown"
    case .v6(let v6)?:
      var raw = v6.address.sin6_addr
      let bytes = withUnsafeBytes(of: &raw) { Array($0) }
      if bytes.prefix(12).elementsEqual(ipv4MappedPrefix) {
        return bytes.suffix(4).map { String($0) }.joined(separator: ".")
      }
      return bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ".") + "/64"
    default:
      return "unknown"
    }
  }

  /// The first 12 bytes of an IPv4-mapped IPv6 address (RFC 4291, 2.5.5.2).
  private static let ipv4MappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]

  @Sendable public static func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }
}
