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
    self.init(idleSeconds: idleSeconds, deadline: now + Int64(maximumSeconds))
  }

  /// The seconds the kernel should keep the key from `now`, as a use refreshes it: the idle
  /// time, cut short at the deadline; 0 once the deadline has passed.
  func timeout(at now: Int64) -> Int {
    let left = deadline - now
    if left <= 0 { return 0 }
    return Int(min(Int64(idleSeconds), left))
  }

  /// The current time in whole seconds since 1970, the clock the kernel's key timeouts use.
  public static func now() -> Int64 {
    Int64(time(nil))
  }
}
