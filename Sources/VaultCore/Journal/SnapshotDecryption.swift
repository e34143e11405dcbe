import Dispatch
import Synchronization

/// Decrypts a big snapshot on another thread, chunk by chunk, while the calling thread reads
/// and applies the entries already decrypted (see `SpaceState.SnapshotApplication`): on two
/// cores the two take about as long each, so a big space opens in the time of the longer,
/// not of both one after the other.
///
/// The bytes before `decrypted` are final and authenticated; the decrypting thread writes
/// nothing before that count again. The calling thread must end with `finish` (after the
/// last bytes came) or `abandon`, which both return only once the buffer is no longer written.
final class SnapshotDecryption: @unchecked Sendable {
  private struct Progress {
    var decrypted = 0
    /// Set when decrypting ended: the plaintext's length, or why it failed.
    var outcome: Result<Int, Error>?
    var isAbandoned = false
  }

  /// Thrown into the reader to stop it once the entries turned out malformed.
  private struct Abandoned: Error {}

  private let progress = Mutex(Progress())
  private let moreDecrypted = DispatchSemaphore(value: 0)
  private let ended = DispatchSemaphore(value: 0)
  private var isJoined = false

  /// Starts decrypting the rest of `reader`'s plaintext into `buffer`; `written` is called on
  /// the decrypting thread after each chunk with the count so far, before the count is
  /// published (to make the pages of what comes next).
  init(
    reading reader: BlobReader, into buffer: UnsafeMutableRawBufferPointer,
    written: @escaping @Sendable (Int) -> Void
  ) {
    // The reader is used by this thread alone until `ended` is signalled.
    nonisolated(unsafe) let reader = reader
    nonisolated(unsafe) let buffer = buffer
    DispatchQueue.global(qos: .userInitiated).async {
      let outcome = Result {
        try reader.readRemaining(into: buffer) { count in
          written(count)
          let abandoned = self.progress.withLock { progress in
            progress.decrypted = count
            return progress.isAbandoned
          }
          self.moreDecrypted.signal()
          if abandoned { throw Abandoned() }
        }
      }
      self.progress.withLock { $0.outcome = outcome }
      self.moreDecrypted.signal()
      self.ended.signal()
    }
  }

  /// Waits until more than `count` bytes are decrypted, or decrypting ended: the count
  /// decrypted, and whether it is the whole plaintext. Throws what made decrypting fail.
  func wait(beyond count: Int) throws -> (decrypted: Int, isFinal: Bool) {
    while true {
      let now = progress.withLock { $0 }
      if let outcome = now.outcome {
        return (try outcome.get(), true)
      }
      if now.decrypted > count { return (now.decrypted, false) }
      moreDecrypted.wait()
    }
  }

  /// Every byte came (`wait` said so): waits for the decrypting thread's end.
  func finish() {
    join()
  }

  /// The entries are malformed, or decrypting failed: the decrypting thread stops after its
  /// chunk, and this returns once it no longer writes. The count of bytes written.
  @discardableResult
  func abandon() -> Int {
    progress.withLock { $0.isAbandoned = true }
    join()
    return progress.withLock { $0.decrypted }
  }

  private func join() {
    if isJoined { return }
    isJoined = true
    ended.wait()
  }
}
