import Dispatch
import Synchronization

/// Decrypts chunks of a seekable blob on a thread of its own, up to `depth` ahead of the
/// calling thread, which takes them in order: writing out one chunk overlaps decrypting the
/// next, so a big original is exported at the speed of the slower of the two, not of both
/// one after the other. A `follower` (the content hash) gets each chunk too, in order, on a
/// third thread, so that hashing overlaps writing as well; a slot is decrypted into again
/// only once both have let it go. It holds `depth` chunks of plaintext at most, in secure
/// memory that is wiped when it goes; a chunk that does not authenticate is never handed
/// out, and its error comes in its place.
final class ChunkReadAhead: @unchecked Sendable {
  /// Chunks decrypted ahead at most: enough that the three threads, each taken off its core
  /// now and then on a busy machine, rarely wait for one another.
  static let depth = 8

  private let reader: SeekableBlobReader
  private let chunks: Range<Int>
  private let follower: ((Int, UnsafeMutableBufferPointer<UInt8>) -> Void)?
  private let slots = (0..<ChunkReadAhead.depth).map { _ in SecureBytes(count: SeekableBlobFormat.chunkSize) }
  /// Slots free to decrypt into. (Made at 0 and signalled: libdispatch refuses to free a
  /// semaphore left below the value it was made with, as one is when the caller stops early.)
  private let free = DispatchSemaphore(value: 0)
  /// Chunks decrypted (or failed) and not yet taken, by the caller and by the follower.
  private let ready = DispatchSemaphore(value: 0)
  private let readyToFollow = DispatchSemaphore(value: 0)
  /// Signalled by each helper thread when it no longer touches any slot.
  private let ended = DispatchSemaphore(value: 0)
  /// Each slot's plaintext length once decrypted, or why its chunk failed; how many of the
  /// caller and follower still hold it; and whether the calling thread stopped taking chunks.
  private let state = Mutex(
    (
      outcomes: [Result<Int, VaultError>?](repeating: nil, count: depth),
      holders: [Int](repeating: 0, count: depth), stopped: false
    ))

  init(
    _ reader: SeekableBlobReader, chunks: Range<Int>,
    follower: ((Int, UnsafeMutableBufferPointer<UInt8>) -> Void)? = nil
  ) {
    self.reader = reader
    self.chunks = chunks
    self.follower = follower
    for _ in 0..<Self.depth { free.signal() }
  }

  /// Hands each chunk's plaintext to `body` in order, with its number; valid only during
  /// the call. Returns once the follower has had every chunk; returns or throws once no
  /// other thread touches any slot.
  func forEachChunk(_ body: (Int, UnsafeMutableBufferPointer<UInt8>) throws -> Void) throws {
    // Serial queues' threads, not the pool's: the pool may be all callers waiting here.
    DispatchQueue(label: "vault.read-ahead").async { self.decryptAll() }
    if follower != nil { DispatchQueue(label: "vault.read-ahead-follower").async { self.followAll() } }
    let helpers = follower == nil ? 1 : 2
    var finished = false
    defer {
      // Finished: the follower still hashes the last chunks, and stops by itself.
      if !finished {
        state.withLock { $0.stopped = true }
        free.signal()
        readyToFollow.signal()
      }
      for _ in 0..<helpers { ended.wait() }
    }
    for index in chunks {
      ready.wait()
      let slot = (index - chunks.lowerBound) % Self.depth
      let outcome = state.withLock { $0.outcomes[slot] }
      try body(index, plaintext(in: slot, outcome!.get()))
      release(slot)
    }
    finished = true
  }

  private func plaintext(in slot: Int, _ length: Int) -> UnsafeMutableBufferPointer<UInt8> {
    UnsafeMutableBufferPointer(start: slots[slot].mutableBytes, count: length)
  }

  /// One holder lets `slot` go; the last one gives it back to the decrypting thread.
  private func release(_ slot: Int) {
    let last = state.withLock { state -> Bool in
      state.holders[slot] -= 1
      return state.holders[slot] == 0
    }
    if last { free.signal() }
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
      state.withLock {
        $0.outcomes[slot] = outcome
        $0.holders[slot] = follower == nil ? 1 : 2
      }
      ready.signal()
      readyToFollow.signal()
      if case .failure = outcome { return }
    }
  }

  /// Runs on the follower's thread: each decrypted chunk in order, until the last, the
  /// first that failed (the caller throws its error), or the calling thread stops.
  private func followAll() {
    defer { ended.signal() }
    guard let follower else { return }
    for index in chunks {
      readyToFollow.wait()
      let slot = (index - chunks.lowerBound) % Self.depth
      let (stopped, outcome) = state.withLock { ($0.stopped, $0.outcomes[slot]) }
      guard !stopped, case .success(let length) = outcome else { return }
      follower(index, plaintext(in: slot, length))
      release(slot)
    }
  }
}
