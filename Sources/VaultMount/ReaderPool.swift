import Foundation
import VaultCore

/// The readers of every open file of a mount, together: each holds one decrypted 64 KiB
/// chunk in locked memory, so their number, not the number of open files, bounds what the
/// mount decrypts and locks. At most `limit` exist at once; a read that needs one more
/// when there are `limit` closes the reader idle the longest (of any file), which wipes
/// its chunk. A reader is not thread-safe: each read takes one for itself and gives it back.
final class ReaderPool: Sendable {
  let limit: Int
  private struct Readers {
    /// Idle readers, the one idle longest first, each with the file it reads.
    var idle: [(file: ObjectIdentifier, reader: HandedReader)] = []
    var count = 0
  }
  private let state = WaitableMutex(Readers())

  init(limit: Int) {
    self.limit = limit
  }

  /// How many readers (so decrypted chunks) exist now.
  var readers: Int { state.withLock { $0.count } }

  /// An idle reader of `file`, else a new one from `open` (closing the reader idle the
  /// longest if the pool is full); waits while all `limit` readers are busy.
  func take(for file: ObjectIdentifier, open: () throws -> OriginalRangeReader) throws -> OriginalRangeReader
  {
    let (idleReader, evicted) = state.withLock(
      waiting: { readers in
        readers.count >= limit && readers.idle.isEmpty ? .untilWoken : .no
      },
      then: { readers -> (OriginalRangeReader?, OriginalRangeReader?) in
        if let index = readers.idle.lastIndex(where: { $0.file == file }) {
          return (readers.idle.remove(at: index).reader.reader, nil)
        }
        let evicted = readers.count >= limit ? readers.idle.removeFirst().reader.reader : nil
        if evicted == nil { readers.count += 1 }
        return (nil, evicted)
      })
    if let idleReader { return idleReader }
    // Released outside the lock: a reader wipes its chunk as it goes.
    withExtendedLifetime(evicted) {}
    do {
      return try open()
    } catch {
      state.withLock { $0.count -= 1 }
      state.wakeAll()
      throw error
    }
  }

  func giveBack(_ reader: OriginalRangeReader, of file: ObjectIdentifier) {
    let handed = HandedReader(reader: reader)
    state.withLock { $0.idle.append((file, handed)) }
    state.wakeAll()
  }

  /// Closes the idle readers of `file` (closed itself).
  func close(_ file: ObjectIdentifier) {
    let closed = state.withLock { readers in
      defer { readers.idle.removeAll { $0.file == file } }
      let closed = readers.idle.filter { $0.file == file }
      readers.count -= closed.count
      return closed
    }
    state.wakeAll()
    withExtendedLifetime(closed) {}
  }
}

/// A reader in the pool, between two threads that read with it.
///
/// `@unchecked Sendable` for that hand-over, which the compiler cannot follow: a reader is
/// not thread-safe (it keeps the chunk it decrypted), and the pool gives each to one thread
/// at a time, through its lock.
private struct HandedReader: @unchecked Sendable {
  let reader: OriginalRangeReader
}
