import Synchronization

/// A request to stop a long command (Ctrl-C, SIGTERM, SIGHUP), shared by the thread that
/// receives it and the loops that honour it: imports, exports and repairs check it between
/// photos, finish or discard the photo in hand, commit what is done and return early.
///
/// `request()` only touches an atomic counter, so a signal handler may call it.
public final class Interruption: Sendable {
  private let requests = Atomic<Int>(0)

  public init() {}

  /// Whether a stop was requested.
  public var isRequested: Bool { requests.load(ordering: .relaxed) > 0 }

  /// Records a request to stop; returns how many have been made, this one included.
  @discardableResult
  public func request() -> Int {
    requests.wrappingAdd(1, ordering: .relaxed).newValue
  }
}
