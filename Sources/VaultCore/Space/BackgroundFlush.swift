import Foundation

/// Flushes new files to disk on threads of its own while the photos after them are
/// decoded. A flush waits on the disk: on a decode thread it leaves a core idle, and on
/// the committing thread one flush after another would set the pace of the import. Here
/// several run at once, so the file system can commit them together.
final class BackgroundFlusher {
  /// Serial queues each get a thread of their own, outside the pool that runs the decodes
  /// (a concurrent queue would take one of that pool's threads while it waits).
  private let queues = (0..<2).map { DispatchQueue(label: "vault.flush.\($0)") }
  private let lock = NSLock()
  private var nextQueue = 0

  /// Starts flushing `files`, in order, on one of the flushing threads.
  func flush(_ files: [TemporaryFile]) -> PendingFlush {
    lock.lock()
    let queue = queues[nextQueue]
    nextQueue = (nextQueue + 1) % queues.count
    lock.unlock()
    let pending = PendingFlush()
    pending.group.enter()
    queue.async {
      do {
        for file in files { try file.sync() }
      } catch let error as VaultError {
        pending.error = error
      } catch {
        pending.error = .io(path: files.first?.directory ?? "", reason: "\(error)")
      }
      pending.group.leave()
    }
    return pending
  }
}

/// Files being flushed in the background. Nothing else may touch them until `wait`
/// returns: the flushing thread uses their descriptors until then.
final class PendingFlush {
  fileprivate let group = DispatchGroup()
  /// Written by the flushing thread before it leaves the group, read after `wait`.
  fileprivate var error: VaultError?

  /// Waits until the files are flushed; throws what the flush failed with.
  func wait() throws {
    group.wait()
    if let error { throw error }
  }
}
