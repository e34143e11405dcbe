import Dispatch
import Synchronization

/// Decrypts a big snapshot on another thread, chunk by chunk, and reads its entries there
/// as they become whole (`SnapshotScanner`), while the calling thread applies the entries
/// read so far: on two cores a big space opens in the time of the longer of the two, not of
/// both one after the other.
///
/// The bytes before `decrypted` are final and authenticated; the decrypting thread writes
/// nothing before that count again. The calling thread must end with `finish` (after the
/// last entries came) or `abandon`, which both return only once the buffer is no longer
/// written.
final class SnapshotDecryption: @unchecked Sendable {
  private struct Progress {
    var decrypted = 0
    /// The bytes written into the buffer, read or not (to wipe them all).
    var written = 0
    /// Entries read and not yet taken, in order.
    var read: [[SnapshotItem]] = []
    /// Set when decrypting and reading ended: the plaintext's length, or why they failed.
    var outcome: Result<Int, Error>?
    var isAbandoned = false
  }

  /// Thrown into the reader to stop it once the calling thread gave up.
  private struct Abandoned: Error {}

  private let progress = Mutex(Progress())
  private let moreRead = DispatchSemaphore(value: 0)
  private let ended = DispatchSemaphore(value: 0)
  private var isJoined = false

  /// Starts decrypting the rest of `reader`'s plaintext into `buffer` and reading its
  /// entries.
  init(reading reader: BlobReader, into buffer: UnsafeMutableRawBufferPointer) {
    // The reader and the buffer past `decrypted` are this thread's alone until `ended`.
    nonisolated(unsafe) let reader = reader
    nonisolated(unsafe) let buffer = buffer
    DispatchQueue.global(qos: .userInitiated).async {
      var scanner = SnapshotScanner()
      let outcome = Result { () throws -> Int in
        let count = try reader.readRemaining(into: buffer) { count in
          // Counted before the entries are read: reading them may throw.
          self.progress.withLock { $0.written = count }
          try self.publish(
            count, try scanner.scan(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), isFinal: false))
        }
        try self.publish(
          count, try scanner.scan(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), isFinal: true))
        return count
      }
      self.progress.withLock { $0.outcome = outcome }
      self.moreRead.signal()
      self.ended.signal()
    }
  }

  private func publish(_ count: Int, _ items: [SnapshotItem]) throws {
    let abandoned = progress.withLock { progress in
      progress.decrypted = count
      if !items.isEmpty { progress.read.append(items) }
      return progress.isAbandoned
    }
    moreRead.signal()
    if abandoned { throw Abandoned() }
  }

  /// Waits until entries were read that were not taken yet, or reading ended: the count of
  /// bytes decrypted, those entries, and whether that is the whole snapshot. Throws what
  /// made decrypting or reading fail.
  func take() throws -> (decrypted: Int, read: [[SnapshotItem]], isFinal: Bool) {
    while true {
      let taken = progress.withLock { progress in
        defer { progress.read.removeAll() }
        return (progress.decrypted, progress.read, progress.outcome)
      }
      if case .failure(let error) = taken.2 { throw error }
      if taken.2 != nil || !taken.1.isEmpty { return (taken.0, taken.1, taken.2 != nil) }
      moreRead.wait()
    }
  }

  /// Every entry came (`take` said so): waits for the decrypting thread's end.
  func finish() {
    join()
  }

  /// The calling thread gives up, or decrypting or reading failed: the decrypting thread
  /// stops after its chunk, and this returns once it no longer writes. The count of bytes
  /// written, read or not.
  @discardableResult
  func abandon() -> Int {
    progress.withLock { $0.isAbandoned = true }
    join()
    return progress.withLock { $0.written }
  }

  private func join() {
    if isJoined { return }
    isJoined = true
    ended.wait()
  }
}
