import Foundation

/// A mutex whose holder can wait, the lock released meanwhile, until another thread changes
/// what it guards: a condition variable with its state inside, so that the state is reached
/// only under the lock (`Mutex`, from Synchronization, cannot wait).
///
/// `@unchecked Sendable` for the same reason `Mutex` is: every access to `state` goes
/// through `withLock`, under `condition`'s lock, and values cross in and out as `sending`,
/// which the compiler checks at each call. It wraps Foundation's `NSCondition`, which
/// predates Swift's checks and cannot say so itself.
public final class WaitableMutex<State>: @unchecked Sendable {
  /// How long `withLock(waiting:then:)` waits before it looks at the state again.
  public enum Wait {
    /// The state is as wanted: go on.
    case no
    /// Until another thread calls `wakeAll`.
    case untilWoken
    /// Until `wakeAll`, or `seconds` at most.
    case atMost(seconds: Double)
  }

  private let condition = NSCondition()
  private var state: State

  public init(_ state: sending State) {
    self.state = state
  }

  /// Runs `body` with the lock held.
  public func withLock<Result>(_ body: (inout sending State) throws -> sending Result) rethrows
    -> sending Result
  {
    condition.lock()
    defer { condition.unlock() }
    return try body(&state)
  }

  /// Runs `body` with the lock held, handing it `value`: a value another thread made, which
  /// `body` may keep in the state (a closure's capture could not go there, as the compiler
  /// sees it).
  public func withLock<Value, Result>(
    handing value: sending Value, _ body: (inout sending State, sending Value) throws -> sending Result
  ) rethrows -> sending Result {
    condition.lock()
    defer { condition.unlock() }
    return try body(&state, value)
  }

  /// Waits for as long as `wait` says, asking it again after each wake-up (which may also
  /// come for no reason), then runs `body`; both with the lock held.
  public func withLock<Result>(
    waiting wait: (inout sending State) -> Wait, then body: (inout sending State) throws -> sending Result
  ) rethrows -> sending Result {
    condition.lock()
    defer { condition.unlock() }
    while true {
      switch wait(&state) {
      case .no: return try body(&state)
      case .untilWoken: condition.wait()
      case .atMost(let seconds): _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
      }
    }
  }

  /// Wakes every thread waiting in `withLock(waiting:then:)`: call it after a change they
  /// may wait for (with the lock held or not; the waiters look at the state under it).
  public func wakeAll() {
    condition.broadcast()
  }
}
