import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// A mutex whose holder waits for other threads' changes: no change is lost, however the
/// threads interleave, and a timed wait ends by itself.
final class WaitableMutexTests: XCTestCase {
  /// Threads each add their share, waking the waiter after each; it sees the total, whatever
  /// the order (random shares, seeded).
  func testAWaiterSeesEveryChangeMadeByOtherThreads() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<20 {
      let shares = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
        Int.random(in: 1...200, using: &generator)
      }
      let total = shares.reduce(0, +)
      let counter = WaitableMutex(0)
      for share in shares {
        Thread.detachNewThread {
          for _ in 0..<share {
            counter.withLock { $0 += 1 }
            counter.wakeAll()
          }
        }
      }
      let seen = counter.withLock(waiting: { $0 < total ? .untilWoken : .no }, then: { $0 })
      XCTAssertEqual(seen, total, "seed \(seed)")
    }
  }

  /// Nobody wakes it: a wait with a limit ends by itself, and `wait` is asked again.
  func testATimedWaitEndsWithoutAWakeUp() {
    let asked = WaitableMutex(0)
    let result = asked.withLock(
      waiting: { times in
        times += 1
        return times == 1 ? .atMost(seconds: 0.001) : .no
      },
      then: { $0 })
    XCTAssertEqual(result, 2)
  }
}
