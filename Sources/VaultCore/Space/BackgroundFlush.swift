import Foundation
import Synchronization

/// Flushes new files to disk on threads of its own while the photos after them are
/// decoded. A flush waits on the disk: on a decode thread it leaves a core idle, and on
/// the committing thread one flush after another would set the pace of the import. Here
/// several run at once, so the file system can commit them together.
final class BackgroundFlusher: Sendable {
  /// Serial queues each get a thread of their own, outside the pool that runs the decodes
  /// (a concurrent queue would take one of that pool's threads while it waits).
  private let queues = (0..<2).map { DispatchQueue(label: "vault.flush.\($0)") }
  private let nextQueue = Mutex(0)

  /// Starts flushing `files`, in order, on one of the flushing threads.
  func flush(_ files: [TemporaryFile]) -> PendingFlush {
    let queue = nextQueue.withLock { next in
      defer { next = (next + 1) % queues.count }
      return queues[next]
    }
    // The files are lent to the flushing thread: the caller leaves them alone until `wait`
    // returns (see `PendingFlush`), which the compiler cannot see through their references.
    nonisolated(unsafe) let files = files
    let pending = PendingFlush()
    queue.async {
      do {
        for file in files { try file.sync() }
        pending.finish(nil)
      } catch let error as VaultError {
        pending.finish(error)
      } catch {
        pending.finish(.io(path: files.first?.directory ?? "", reason: "\(error)"))
      }
    }
    return pending
  }
}

/// Files being flushed in the background. Nothing else may touch them until `wait`
/// returns: the flushing thread uses their descriptors until then.
final class PendingFlush: Sendable {
  /// Nil until the flushing thread is done; then what it failed with, if anything.
  private let outcome = WaitableMutex<Result<Void, VaultError>?>(nil)

  fileprivate func finish(_ error: VaultError?) {
    outcome.withLock { $0 = error.map { .failure($0) } ?? .success(()) }
    outcome.wakeAll()
  }

  /// Waits until the files are flushed; throws what the flush failed with.
  func wait() throws {
    let flushed = outcome.withLock(waiting: { $0 == nil ? .untilWoken : .no }, then: { $0 })
    try flushed?.get()
  }
}
