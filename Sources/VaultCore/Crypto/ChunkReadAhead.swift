import Dispatch
import Synchronization

/// Decrypts chunks of a seekable blob on a thread of its own, up to `depth` ahead of the
/// calling thread, which takes them in order: hashing and writing out one chunk overlaps
/// decrypting the next, so a big original is exported at the speed of the slower of the
/// two, not of both one after the other. It holds `depth` chunks of plaintext at most, in
/// secure memory that is wiped when it goes; a chunk that does not authenticate is never
/// handed out, and its error comes in its place.
final class ChunkReadAhead: @unchecked Sendable {
  /// Chunks decrypted ahead at most.
  static let depth = 4

  private let reader: SeekableBlobReader
  private let chunks: Range<Int>
  private let slots = (0..<ChunkReadAhead.depth).map { _ in SecureBytes(count: SeekableBlobFormat.chunkSize) }
  /// Slots free to decrypt into. (Made at 0 and signalled: libdispatch refuses to free a
  /// semaphore left below the value it was made with, as one is when the caller stops early.)
  private let free = DispatchSemaphore(value: 0)
  /// Chunks decrypted (or failed) and not yet taken.
  private let ready = DispatchSemaphore(value: 0)
  private let ended = DispatchSemaphore(value: 0)
  /// Each slot's plaintext length once decrypted, or why its chunk failed; and whether the
  /// calling thread stopped taking chunks.
  private let state = Mutex(
    (outcomes: [Result<Int, VaultError>?](repeating: nil, count: depth), stopped: false))

  init(_ reader: SeekableBlobReader, chunks: Range<Int>) {
    self.reader = reader
    self.chunks = chunks
    for _ in 0..<Self.depth { free.signal() }
  }

  /// Hands each chunk's plaintext to `body` in order, with its number; valid only during
  /// the call. Returns (or throws) once the decrypting thread no longer touches any slot.
  func forEachChunk(_ body: (Int, UnsafeMutableBufferPointer<UInt8>) throws -> Void) throws {
    // A serial queue's thread, not the pool's: the pool may be all callers waiting here.
    DispatchQueue(label: "vault.read-ahead").async { self.decryptAll() }
    defer {
      state.withLock { $0.stopped = true }
      free.signal()
      ended.wait()
    }
    for index in chunks {
      ready.wait()
      let slot = (index - chunks.lowerBound) % Self.depth
      let outcome = state.withLock { $0.outcomes[slot] }
      let length = try outcome!.get()
      try body(index, UnsafeMutableBufferPointer(start: slots[slot].mutableBytes, count: length))
      free.signal()
    }
  }

  /// Runs on the decrypting thread: each chunk into the next free slot, until the last, the
  /// first that fails, or the calling thread stops.
  private func decryptAll() {
    defer { ended.signal() }
    var sealed = [UInt8](repeating: 0, count: SeekableBlobFormat.sealedChunkSize)
    for index in chunks {
      free.wait()
      if state.withLock({ $0.stopped }) { return }
      let slot = (index - chunks.lowerBound) % Self.depth
      let outcome: Result<Int, VaultError>
      do {
        outcome = .success(try reader.decrypt(index, through: &sealed, into: slots[slot].mutableBytes))
      } catch let error as VaultError {
        outcome = .failure(error)
      } catch {
        outcome = .failure(.damagedBlob(what: reader.what, reason: "\(error)"))
      }
      state.withLock { $0.outcomes[slot] = outcome }
      ready.signal()
      if case .failure = outcome { return }
    }
  }
}
