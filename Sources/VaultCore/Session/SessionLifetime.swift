import Foundation

/// How long a session key lasts: `idleSeconds` after its last use, and never past
/// `deadline`, however often it is used.
public struct SessionLifetime: Equatable, Sendable {
  /// Seconds a key is kept after it was last used (`vault unlock --for`).
  public let idleSeconds: Int
  /// Seconds since 1970 after which the key is gone for good (`--max` after the unlock).
  public let deadline: Int64

  /// The kernel counts a key's timeout in whole seconds, as an unsigned 32-bit number.
  public static let longestSeconds = 7 * 24 * 3600

  public init(idleSeconds: Int, deadline: Int64) {
    precondition(idleSeconds >= 1 && idleSeconds <= Self.longestSeconds)
    self.idleSeconds = idleSeconds
    self.deadline = deadline
  }

  /// A lifetime that starts now: `idleSeconds` after each use, at most `maximumSeconds`.
  public init(idleSeconds: Int, maximumSeconds: Int, now: Int64 = SessionLifetime.now()) {
    precondition(maximumSeconds >= 1 && maximumSeconds <= Self.longestSeconds)
    self.init(idleSeconds: idleSeconds, deadline: now + Int64(maximumSeconds))
  }

  /// Whether a deadline read back from the keyring could have been written by an unlock
  /// at `now`: no further ahead than the longest lifetime (a minute more for a clock
  /// stepped meanwhile). The payload is not authenticated, so anything else is refused.
  static func isPlausible(deadline: Int64, at now: Int64) -> Bool {
    let (ahead, overflow) = deadline.subtractingReportingOverflow(now)
    return deadline > 0 && !overflow && ahead <= Int64(longestSeconds) + 60
  }

  /// The seconds the kernel should keep the key from `now`, as a use refreshes it: the idle
  /// time, cut short at the deadline; 0 once the deadline has passed. Total for any
  /// deadline and clock: neither comes from a trusted source.
  func timeout(at now: Int64) -> Int {
    if deadline <= now { return 0 }
    let (left, overflow) = deadline.subtractingReportingOverflow(now)
    if overflow { return idleSeconds }
    return Int(min(Int64(idleSeconds), left))
  }

  /// The current time in whole seconds since 1970, the clock the kernel's key timeouts use.
  public static func now() -> Int64 {
    Int64(time(nil))
  }
}
