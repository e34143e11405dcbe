import Synchronization

/// The ciphertext of offloaded originals fetched from remotes, kept in memory (never on
/// disk) in blocks of `blockSize` bytes, the least recently used let go first once the
/// blocks hold more than `limit` bytes. One per process (`shared`), so that the mount's
/// threads and the viewer's loaders share what one of them fetched.
package final class RemoteBlockCache: Sendable {
  /// Remote reads are of whole blocks at their grid's places, so that one place is cached
  /// once, however it was asked for.
  package static let blockSize = 1 << 20
  package static let shared = RemoteBlockCache(limit: 64 << 20)

  /// A block: the file it is of (remote and path) and its number in that file.
  package struct Key: Hashable, Sendable {
    let file: String
    let block: Int
  }

  private struct State {
    var blocks: [Key: (bytes: [UInt8], lastUse: UInt64)] = [:]
    var total = 0
    var clock: UInt64 = 0
  }

  package let limit: Int
  private let state = Mutex(State())

  package init(limit: Int) { self.limit = limit }

  /// The block's bytes if it is held; it becomes the most recently used.
  func block(_ key: Key) -> [UInt8]? {
    state.withLock { state in
      guard let entry = state.blocks[key] else { return nil }
      state.clock += 1
      state.blocks[key] = (entry.bytes, state.clock)
      return entry.bytes
    }
  }

  /// Keeps `bytes` as the block `key`, letting the least recently used blocks go to stay
  /// within the limit.
  func keep(_ bytes: [UInt8], as key: Key) {
    state.withLock { state in
      state.clock += 1
      if let old = state.blocks.updateValue((bytes, state.clock), forKey: key) {
        state.total -= old.bytes.count
      }
      state.total += bytes.count
      while state.total > limit, let oldest = state.blocks.min(by: { $0.value.lastUse < $1.value.lastUse }) {
        state.blocks[oldest.key] = nil
        state.total -= oldest.value.bytes.count
      }
    }
  }

  /// The bytes the blocks hold now.
  package var heldBytes: Int { state.withLock { $0.total } }
}
