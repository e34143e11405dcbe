import Foundation

/// Bytes of memory shared by the photos being imported at once, by `add`'s decode threads
/// and by `serve`'s uploads alike: each reserves what its bytes and its decoding will take
/// before it starts, and gives it back when done, so that together they stay within
/// `total` however many run. Requests are served in the order they came, so a large photo
/// is not starved by small ones; none waits while holding a reservation, so none waits
/// forever.
///
/// A thread reserving blocks (`reserve(_:)`); an upload reserving is a suspended task
/// (`reserve(_:waitingAtMost:timeout:)`) that holds no thread, so a server can keep many
/// connections waiting, and its wait is bounded and cancellable.
final class MemoryBudget: @unchecked Sendable {
  let total: Int
  /// Guards everything below (a lock rather than an actor: blocking callers use it too).
  private let lock = NSLock()
  private var available: Int
  private var waiting: [Waiter] = []
  private var lastWaiterID = 0

  private struct Waiter {
    let id: Int
    let bytes: Int
    let wake: Wake
  }

  /// How a waiting request is told that its memory is taken, or that it waits no more.
  private enum Wake {
    case thread(DispatchSemaphore)
    case task(CheckedContinuation<Void, Error>)

    func resume() {
      switch self {
      case .thread(let semaphore): semaphore.signal()
      case .task(let continuation): continuation.resume()
      }
    }
  }

  init(total: Int) {
    self.total = total
    available = total
  }

  /// Takes `bytes` (at most `total`) once they are free and every earlier request is
  /// served, blocking the calling thread meanwhile; returns what was taken, to give back
  /// with `release`.
  func reserve(_ bytes: Int) -> Int {
    let bytes = min(bytes, total)
    let semaphore = DispatchSemaphore(value: 0)
    guard !takeOrQueue(bytes, wake: .thread(semaphore), id: newWaiterID()) else { return bytes }
    semaphore.wait()
    return bytes
  }

  /// Takes `bytes` (at most `total`) once they are free and every earlier request is
  /// served. Throws `timeout` after `seconds` without them, and CancellationError when the
  /// task is cancelled meanwhile; nothing is taken then.
  func reserve(_ bytes: Int, waitingAtMost seconds: Double, timeout: VaultError) async throws {
    precondition(bytes <= total, "a request larger than the budget would wait forever")
    let id = newWaiterID()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
        guard !takeOrQueue(bytes, wake: .task(continuation), id: id) else {
          continuation.resume()
          return
        }
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
    let served = lock.withLock {
      available += bytes
      return serveWaiting()
    }
    for waiter in served { waiter.wake.resume() }
  }

  /// Takes `bytes` at once when nobody waits before and they are free (true), or queues
  /// the request, to be woken by `wake` (false).
  private func takeOrQueue(_ bytes: Int, wake: Wake, id: Int) -> Bool {
    lock.withLock {
      if waiting.isEmpty && available >= bytes {
        available -= bytes
        return true
      }
      waiting.append(Waiter(id: id, bytes: bytes, wake: wake))
      return false
    }
  }

  private func newWaiterID() -> Int {
    lock.withLock {
      lastWaiterID += 1
      return lastWaiterID
    }
  }

  /// Ends an upload's request still waiting (a request already served is left alone); the
  /// ones behind it may fit now.
  private func abandon(_ id: Int, throwing error: Error) {
    let (abandoned, served): (Waiter?, [Waiter]) = lock.withLock {
      guard let position = waiting.firstIndex(where: { $0.id == id }) else { return (nil, []) }
      return (waiting.remove(at: position), serveWaiting())
    }
    guard let abandoned else { return }
    if case .task(let continuation) = abandoned.wake { continuation.resume(throwing: error) }
    for waiter in served { waiter.wake.resume() }
  }

  /// Takes the memory of the first waiting requests that fit; called with the lock held,
  /// the waiters are woken after it is let go.
  private func serveWaiting() -> [Waiter] {
    var served: [Waiter] = []
    while let first = waiting.first, first.bytes <= available {
      available -= first.bytes
      served.append(waiting.removeFirst())
    }
    return served
  }
}
