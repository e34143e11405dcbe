import Foundation

/// Runs `prepare` over items (files to import, photos to export) on background threads, at
/// most `limit` results prepared but not yet taken, and hands the results out in the items'
/// order. Memory stays bounded however many items there are. Once `interruption` is
/// requested, no further item is handed to a worker.
final class PreparationPipeline<Item, Prepared> {
  typealias Outcome = Result<Prepared, VaultError>

  private let condition = NSCondition()
  private let limit: Int
  private let workers = DispatchGroup()
  private let producer = DispatchGroup()
  private var results: [Int: Outcome] = [:]
  /// Files handed to a worker whose result has not been taken yet.
  private var inFlight = 0
  private var stopped = false
  /// How many items (from the first) have been handed to a worker.
  private var handedOut = 0
  /// Whether the producer has stopped handing items out (all done, interrupted or stopped).
  private var producing = true
  /// Gets rid of a result that will not be taken (removes its temporary files).
  private let discard: (Prepared) -> Void

  init(
    items: [Item], limit: Int, interruption: Interruption? = nil, prepare: @escaping (Item) -> Outcome,
    discard: @escaping (Prepared) -> Void
  ) {
    self.limit = limit
    self.discard = discard
    let queue = DispatchQueue(label: "vault.pipeline", attributes: .concurrent)
    producer.enter()
    // The producer waits most of the time. On a global queue it would hold one of the
    // threads that run `prepare` (as many as there are cores) while it waits, leaving one
    // decoder fewer until libdispatch notices, about a second later: on 2 cores, half of
    // a short import. A serial queue of its own runs on a thread outside that pool.
    DispatchQueue(label: "vault.pipeline.producer").async { [self] in
      defer {
        condition.lock()
        producing = false
        condition.broadcast()
        condition.unlock()
        producer.leave()
      }
      for (position, item) in items.enumerated() {
        condition.lock()
        while inFlight >= limit && !stopped { condition.wait() }
        if stopped || interruption?.isRequested == true {
          condition.unlock()
          return
        }
        inFlight += 1
        handedOut = position + 1
        workers.enter()
        condition.unlock()
        queue.async { [self] in
          let outcome = prepare(item)
          condition.lock()
          results[position] = outcome
          condition.broadcast()
          condition.unlock()
          workers.leave()
        }
      }
    }
  }

  /// The result for the item at `position`, waiting for it if needed. If it is not ready,
  /// first calls `whileWaiting` once (outside the lock) so the caller can do useful work.
  /// Returns nil when the item will never be prepared (the pipeline was interrupted first).
  func result(at position: Int, whileWaiting: () throws -> Void) rethrows -> Outcome? {
    var waited = false
    condition.lock()
    while results[position] == nil {
      if !producing && position >= handedOut {
        condition.unlock()
        return nil
      }
      if !waited {
        waited = true
        condition.unlock()
        try whileWaiting()
        condition.lock()
        continue
      }
      condition.wait()
    }
    let outcome = results.removeValue(forKey: position)!
    inFlight -= 1
    condition.broadcast()
    condition.unlock()
    return outcome
  }

  /// Stops handing out work, waits for what is running, and drops results not taken
  /// (their temporary files are removed).
  func finish() {
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
    producer.wait()
    workers.wait()
    condition.lock()
    for case .success(let prepared) in results.values { discard(prepared) }
    results.removeAll()
    condition.unlock()
  }
}
