import Foundation

/// Bytes of memory shared by the photos an import prepares at once. Each photo reserves
/// what its decoding and its bytes will take before it starts, waiting while the others
/// hold too much, and gives it back when done: however many cores run photos, together
/// they stay within `total`. Requests are served in the order they came, so a large photo
/// is not starved by small ones; no photo waits while holding a reservation, so none waits
/// forever.
final class MemoryBudget {
  let total: Int
  private var available: Int
  private var nextTicket = 0
  private var serving = 0
  private let condition = NSCondition()

  init(total: Int) {
    self.total = total
    available = total
  }

  /// Takes `bytes` (at most `total`) once they are free; returns what was taken, to give
  /// back with `release`.
  func reserve(_ bytes: Int) -> Int {
    let bytes = min(bytes, total)
    condition.lock()
    defer { condition.unlock() }
    let ticket = nextTicket
    nextTicket += 1
    while ticket != serving || available < bytes { condition.wait() }
    available -= bytes
    serving += 1
    condition.broadcast()
    return bytes
  }

  func release(_ bytes: Int) {
    condition.lock()
    available += bytes
    condition.broadcast()
    condition.unlock()
  }
}
