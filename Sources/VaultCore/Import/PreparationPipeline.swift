import Foundation

/// Runs `prepare` over items (files to import, photos to export) on background threads, at
/// most `limit` results prepared but not yet taken, and hands the results out in the items'
/// order. Memory stays bounded however many items there are. Once `interruption` is
/// requested, no further item is handed to a worker.
final class PreparationPipeline<Item: Sendable, Prepared>: Sendable {
  typealias Outcome = Result<Prepared, VaultError>

  private struct State {
    var results: [Int: Outcome] = [:]
    /// Items handed to a worker whose result has not been taken yet.
    var inFlight = 0
    var stopped = false
    /// How many items (from the first) have been handed to a worker.
    var handedOut = 0
    /// Whether the producer still hands items out (not all done, interrupted or stopped).
    var producing = true

    /// Whether the item at `position` will never be prepared.
    func neverPrepares(_ position: Int) -> Bool { !producing && position >= handedOut }
  }

  /// What `take` found for an item.
  private enum Taken {
    case ready(Outcome)
    case notYet
    case never
  }

  private let state = WaitableMutex(State())
  private let workers = DispatchGroup()
  private let producer = DispatchGroup()
  /// Gets rid of a result that will not be taken (removes its temporary files).
  private let discard: @Sendable (Prepared) -> Void

  init(
    items: [Item], limit: Int, interruption: Interruption? = nil,
    prepare: @escaping @Sendable (Item) -> sending Outcome, discard: @escaping @Sendable (Prepared) -> Void
  ) {
    self.discard = discard
    let queue = DispatchQueue(label: "vault.pipeline", attributes: .concurrent)
    producer.enter()
    // The producer waits most of the time. On a global queue it would hold one of the
    // threads that run `prepare` (as many as there are cores) while it waits, leaving one
    // decoder fewer until libdispatch notices, about a second later: on 2 cores, half of
    // a short import. A serial queue of its own runs on a thread outside that pool.
    DispatchQueue(label: "vault.pipeline.producer").async { [self] in
      defer {
        state.withLock { $0.producing = false }
        state.wakeAll()
        producer.leave()
      }
      for (position, item) in items.enumerated() {
        let handed = state.withLock(
          waiting: { $0.inFlight >= limit && !$0.stopped ? .untilWoken : .no },
          then: { state -> Bool in
            if state.stopped || interruption?.isRequested == true { return false }
            state.inFlight += 1
            state.handedOut = position + 1
            return true
          })
        guard handed else { return }
        workers.enter()
        queue.async { [self] in
          let outcome = prepare(item)
          state.withLock(handing: outcome) { state, outcome in state.results[position] = outcome }
          state.wakeAll()
          workers.leave()
        }
      }
    }
  }

  /// The result for the item at `position`, waiting for it if needed. If it is not ready,
  /// first calls `whileWaiting` once (outside the lock) so the caller can do useful work.
  /// Returns nil when the item will never be prepared (the pipeline was interrupted first).
  func result(at position: Int, whileWaiting: () throws -> Void) rethrows -> Outcome? {
    var taken = take(position, waiting: false)
    if case .notYet = taken {
      try whileWaiting()
      taken = take(position, waiting: true)
    }
    switch taken {
    case .ready(let outcome): return outcome
    case .notYet, .never: return nil
    }
  }

  /// The result at `position` if it is there (waiting for it, or for the news that it will
  /// never come, with `waiting`).
  private func take(_ position: Int, waiting: Bool) -> Taken {
    let taken = state.withLock(
      waiting: { state in
        waiting && state.results[position] == nil && !state.neverPrepares(position) ? .untilWoken : .no
      },
      then: { state -> Taken in
        if let outcome = state.results.removeValue(forKey: position) {
          state.inFlight -= 1
          return .ready(outcome)
        }
        return state.neverPrepares(position) ? .never : .notYet
      })
    if case .ready = taken { state.wakeAll() }
    return taken
  }

  /// Stops handing out work, waits for what is running, and drops results not taken
  /// (their temporary files are removed).
  func finish() {
    state.withLock { $0.stopped = true }
    state.wakeAll()
    producer.wait()
    workers.wait()
    state.withLock { state in
      for case .success(let prepared) in state.results.values { discard(prepared) }
      state.results.removeAll()
    }
  }
}
