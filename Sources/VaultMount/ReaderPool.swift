import Foundation
import VaultCore

/// The readers of every open file of a mount, together: each holds one decrypted 64 KiB
/// chunk in locked memory, so their number, not the number of open files, bounds what the
/// mount decrypts and locks. At most `limit` exist at once; a read that needs one more
/// when there are `limit` closes the reader idle the longest (of any file), which wipes
/// its chunk. A reader is not thread-safe: each read takes one for itself and gives it back.
final class ReaderPool {
  let limit: Int
  private let condition = NSCondition()
  /// Idle readers, the one idle longest first, each with the file it reads.
  private var idle: [(file: ObjectIdentifier, reader: OriginalRangeReader)] = []
  private var count = 0

  init(limit: Int) {
    self.limit = limit
  }

  /// How many readers (so decrypted chunks) exist now.
  var readers: Int {
    condition.lock()
    defer { condition.unlock() }
    return count
  }

  /// An idle reader of `file`, else a new one from `open` (closing the reader idle the
  /// longest if the pool is full); waits while all `limit` readers are busy.
  func take(for file: ObjectIdentifier, open: () throws -> OriginalRangeReader) throws -> OriginalRangeReader
  {
    condition.lock()
    if let index = idle.lastIndex(where: { $0.file == file }) {
      let reader = idle.remove(at: index).reader
      condition.unlock()
      return reader
    }
    while count >= limit && idle.isEmpty { condition.wait() }
    // Released outside the lock: a reader wipes its chunk as it goes.
    let evicted = count >= limit ? idle.removeFirst().reader : nil
    if evicted == nil { count += 1 }
    condition.unlock()
    withExtendedLifetime(evicted) {}
    do {
      return try open()
    } catch {
      condition.lock()
      count -= 1
      condition.signal()
      condition.unlock()
      throw error
    }
  }

  func giveBack(_ reader: OriginalRangeReader, of file: ObjectIdentifier) {
    condition.lock()
    idle.append((file, reader))
    condition.signal()
    condition.unlock()
  }

  /// Closes the idle readers of `file` (closed itself).
  func close(_ file: ObjectIdentifier) {
    condition.lock()
    let closed = idle.filter { $0.file == file }
    idle.removeAll { $0.file == file }
    count -= closed.count
    condition.signal()
    condition.unlock()
    withExtendedLifetime(closed) {}
  }
}
