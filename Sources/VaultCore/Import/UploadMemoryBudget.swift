import Foundation

/// Bytes of memory shared by the uploads in progress: each reserves its length before its
/// bytes arrive and gives it back when it is finished or cancelled. Unlike `MemoryBudget`
/// (an import's decode threads), a waiting upload holds no thread: it is a suspended task,
/// so a server can keep many connections waiting. Requests are served in the order they
/// came, so a large upload is not starved by small ones; a wait is bounded.
final class UploadMemoryBudget: @unchecked Sendable {
  let total: Int
  private let lock = NSLock()
  private var available: Int
  private var waiting: [Waiter] = []
  private var lastWaiterID = 0

  private struct Waiter {
    let id: Int
    let bytes: Int
    let continuation: CheckedContinuation<Void, Error>
  }

  init(total: Int) {
    self.total = total
    available = total
  }

  /// Takes `bytes` (at most `total`) once they are free and every earlier request is
  /// served. Throws `timeout` after `seconds` without them, and CancellationError when the
  /// task is cancelled meanwhile; nothing is taken then.
  func reserve(_ bytes: Int, waitingAtMost seconds: Double, timeout: VaultError) async throws {
    precondition(bytes <= total, "a request larger than the budget would wait forever")
    let id = lock.withLock {
      lastWaiterID += 1
      return lastWaiterID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
        lock.lock()
        if waiting.isEmpty && available >= bytes {
          available -= bytes
          lock.unlock()
          continuation.resume()
          return
        }
        waiting.append(Waiter(id: id, bytes: bytes, continuation: continuation))
        lock.unlock()
        // A cancellation that came before the request was queued found nothing to take out.
        if Task.isCancelled { abandon(id, throwing: CancellationError()) }
        if seconds.isFinite {
          DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { [weak self] in
            self?.abandon(id, throwing: timeout)
          }
        }
      }
    } onCancel: {
      abandon(id, throwing: CancellationError())
    }
  }

  /// The requests waiting for memory.
  var waitingCount: Int { lock.withLock { waiting.count } }

  /// Gives back what `reserve` took, and serves the requests that now fit, in order.
  func release(_ bytes: Int) {
    lock.lock()
    available += bytes
    let served = serveWaiting()
    lock.unlock()
    for waiter in served { waiter.continuation.resume() }
  }

  /// Ends a request still waiting (a request already served is left alone); the ones
  /// behind it may fit now.
  private func abandon(_ id: Int, throwing error: Error) {
    lock.lock()
    guard let position = waiting.firstIndex(where: { $0.id == id }) else {
      lock.unlock()
      return
    }
    let abandoned = waiting.remove(at: position)
    let served = serveWaiting()
    lock.unlock()
    abandoned.continuation.resume(throwing: error)
    for waiter in served { waiter.continuation.resume() }
  }

  /// Takes the memory of the first waiting requests that fit; called with the lock held,
  /// the tasks are resumed after it is let go.
  private func serveWaiting() -> [Waiter] {
    var served: [Waiter] = []
    while let first = waiting.first, first.bytes <= available {
      available -= first.bytes
      served.append(waiting.removeFirst())
    }
    return served
  }
}
