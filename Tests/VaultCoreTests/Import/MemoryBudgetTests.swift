import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// One budget for `add`'s threads and `serve`'s uploads: whichever kind asks, requests are
/// served in the order they came.
final class MemoryBudgetTests: XCTestCase {
  /// The order in which waiters were served, appended from threads and tasks alike.
  private final class ServedOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var served: [Int] = []
    func append(_ number: Int) { lock.withLock { served.append(number) } }
    var numbers: [Int] { lock.withLock { served } }
  }

  func testBlockedThreadsAndWaitingTasksAreServedInTheOrderTheyAsked() async throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    let total = 1000
    let budget = MemoryBudget(total: total)
    XCTAssertEqual(budget.reserve(total), total)
    let order = ServedOrder()
    var tasks: [Task<Void, Error>] = []
    var threadsDone: [XCTestExpectation] = []
    for number in 0..<8 {
      // More than half the budget each: only one is served at a time, so the order of
      // service is the order of the `served` list.
      let bytes = Int.random(in: total / 2 + 1...total, using: &generator)
      if Bool.random(using: &generator) {
        let done = expectation(description: "thread \(number)")
        threadsDone.append(done)
        Thread {
          let taken = budget.reserve(bytes)
          order.append(number)
          budget.release(taken)
          done.fulfill()
        }.start()
      } else {
        tasks.append(
          Task {
            try await budget.reserve(
              bytes, waitingAtMost: .infinity, timeout: .uploadsBusy(name: "x", seconds: 0))
            order.append(number)
            budget.release(bytes)
          })
      }
      // Asked before the next one asks.
      while budget.waitingCount < number + 1 { await Task.yield() }
    }
    budget.release(total)
    await fulfillment(of: threadsDone, timeout: 60)
    for task in tasks { try await task.value }
    XCTAssertEqual(order.numbers, Array(0..<8), "seed \(seed)")
    XCTAssertEqual(budget.waitingCount, 0)
    XCTAssertEqual(budget.reserve(total), total, "everything was given back")
  }

  func testAThreadAskingForMoreThanTheBudgetTakesAllOfIt() {
    let budget = MemoryBudget(total: 100)
    XCTAssertEqual(budget.reserve(500), 100)
    budget.release(100)
    XCTAssertEqual(budget.reserve(100), 100)
  }
}
