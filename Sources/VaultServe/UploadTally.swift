import Synchronization
import VaultCore

/// Counts uploads and remembers when the last one moved, for the summary line and for
/// `--idle` and `--once`. Thread-safe.
public final class UploadTally: Sendable {
  public struct Counts: Equatable, Sendable {
    public var added = 0
    public var duplicates = 0
    /// Refused and incomplete uploads.
    public var refused = 0
    /// Uploads begun and not yet reported.
    public var inFlight = 0
    /// Seconds (on `clock`'s scale) of the last request with the token, upload or page.
    public var lastActivity: Double
    public var finished: Int { added + duplicates + refused }
  }

  private let counts: Mutex<Counts>
  private let clock: @Sendable () -> Double

  public init(clock: @escaping @Sendable () -> Double = WrongTokenLimiter.monotonicSeconds) {
    self.clock = clock
    counts = Mutex(Counts(lastActivity: clock()))
  }

  public var current: Counts { counts.withLock { $0 } }

  /// A request with the right token arrived (the page, or an upload's head).
  func noteActivity() {
    let now = clock()
    counts.withLock { $0.lastActivity = now }
  }

  func uploadStarted() {
    let now = clock()
    counts.withLock {
      $0.inFlight += 1
      $0.lastActivity = now
    }
  }

  func uploadEnded(_ event: UploadEvent) {
    let now = clock()
    counts.withLock {
      $0.inFlight -= 1
      $0.lastActivity = now
      switch event {
      case .added: $0.added += 1
      case .duplicate: $0.duplicates += 1
      case .refused, .incomplete: $0.refused += 1
      }
    }
  }

  /// `received 57 photos, 3 duplicates, 1 refused`, `received 1 Live Photo from 2 files, …`:
  /// the uploads stored counted as `list` counts items (`stored`, from the intake), not as
  /// files.
  public func summary(stored: (items: ItemCount, files: Int)) -> String {
    let counts = current
    return
      "received \(stored.items.described(files: stored.files, "from")), \(counts.duplicates) duplicate\(counts.duplicates == 1 ? "" : "s"), \(counts.refused) refused"
  }

  /// Why serving should stop now, if it should: nothing in flight, and either `idle`
  /// seconds without activity, or (`once`) a batch done and `batchGap` seconds quiet.
  public func stopReason(idle: Double?, once: Bool, batchGap: Double) -> StopReason? {
    let counts = current
    guard counts.inFlight == 0 else { return nil }
    let quiet = clock() - counts.lastActivity
    if once, counts.finished > 0, quiet >= batchGap { return .batchDone }
    if let idle, quiet >= idle { return .idle }
    return nil
  }
}

/// Why `vault serve` stopped on its own.
public enum StopReason: Equatable, Sendable {
  case idle
  case batchDone
}
