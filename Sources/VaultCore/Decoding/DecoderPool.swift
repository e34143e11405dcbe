import Foundation

/// Long-lived decoder helpers shared by the threads of a command: at most `size` run at
/// once, each started when first needed and kept for later requests; one that died or was
/// killed is replaced by a fresh one at the next request.
public final class DecoderPool: Sendable {
  public let limits: DecoderLimits
  public let size: Int
  private struct Workers {
    var idle: [DecoderWorker] = []
    /// Idle and lent out.
    var running = 0
  }
  private let workers = WaitableMutex(Workers())

  public init(size: Int, limits: DecoderLimits = DecoderLimits()) {
    self.size = max(1, size)
    self.limits = limits
  }

  /// Starts a helper now, on a thread of its own, so that the first request finds it
  /// ready: `view` and `show` start theirs while the password's key is derived.
  public func prestart() {
    Thread.detachNewThread { [self] in
      guard let worker = try? checkOut() else { return }
      checkIn(worker)
    }
  }

  /// Lends a worker to `body`, waiting for one when all are busy.
  func withWorker<Result>(_ body: (DecoderWorker) throws -> Result) throws -> Result {
    let worker = try checkOut()
    defer { checkIn(worker) }
    return try body(worker)
  }

  /// Reads what `request` asks of `input` in a helper; `name` stands for the file in errors.
  func analyse(_ request: DecoderRequest, input: DecoderInput, name: String) throws -> DecoderAnalysis {
    try withWorker { try $0.analyse(request, input: input, name: name) }
  }

  /// Decodes a picture to be shown in a helper (`DecoderWorker.picture`).
  func picture(_ request: DecoderRequest, input: DecoderInput, name: String) throws -> DecodedPhoto {
    try withWorker { try $0.picture(request, input: input, name: name) }
  }

  /// A worker of its own for as long as the caller keeps it (a playback session); it must
  /// be given back with `checkIn`.
  func checkOut() throws -> DecoderWorker {
    let idleWorker = workers.withLock(
      waiting: { $0.idle.isEmpty && $0.running >= size ? .untilWoken : .no },
      then: { workers -> DecoderWorker? in
        if let worker = workers.idle.popLast() { return worker }
        workers.running += 1
        return nil
      })
    if let idleWorker { return idleWorker }
    do {
      return try DecoderWorker(limits: limits)
    } catch {
      workers.withLock { $0.running -= 1 }
      workers.wakeAll()
      throw error
    }
  }

  func checkIn(_ worker: DecoderWorker) {
    if worker.isAlive && worker.isWornOut { worker.retire() }
    workers.withLock { workers in
      if worker.isAlive { workers.idle.append(worker) } else { workers.running -= 1 }
    }
    workers.wakeAll()
  }

  /// The pids of the helpers now idle (tests read their /proc entries).
  var idlePIDs: [pid_t] {
    workers.withLock { $0.idle.map(\.pid) }
  }
}
