import Foundation

/// The buffers `ReadAheadBlobFile`s read ciphertext into, shared by all of them: at most
/// `limit` exist, so what a process reads ahead stays bounded however many files it holds
/// open, and a buffer let go by one file is reused by the next (not freed and allocated
/// again, which costs a page fault for each of its pages). They hold ciphertext only, which
/// is no secret: they are neither locked nor wiped.
package final class WindowBuffers: Sendable {
  /// The buffers of `vault mount`: 24 MiB of read-ahead for all its open files together.
  package static let shared = WindowBuffers(size: 1 << 20, limit: 24)

  /// Bytes in a buffer: a multiple of the page size, for direct I/O.
  package let size: Int
  package let limit: Int
  private let state: WaitableMutex<Buffers>

  private struct Buffers {
    var idle: [Int] = []
    var made = 0
  }

  package init(size: Int, limit: Int) {
    precondition(size > 0 && size % Self.alignment == 0, "a whole number of pages")
    self.size = size
    self.limit = limit
    state = WaitableMutex(Buffers())
  }

  /// Direct I/O wants buffers, places and lengths aligned to the device's blocks: a page
  /// covers every device's.
  static let alignment = 4096

  /// A buffer of `size` bytes, aligned for direct I/O, or nil when all `limit` are taken.
  func take() -> UnsafeMutableRawPointer? {
    let reused = state.withLock { buffers -> Int?? in
      if let address = buffers.idle.popLast() { return .some(address) }
      guard buffers.made < limit else { return .none }
      buffers.made += 1
      return .some(nil)
    }
    switch reused {
    case .none: return nil
    case .some(.some(let address)): return UnsafeMutableRawPointer(bitPattern: address)
    case .some(.none):
      var memory: UnsafeMutableRawPointer?
      guard posix_memalign(&memory, Self.alignment, size) == 0, let memory else {
        state.withLock { $0.made -= 1 }
        return nil
      }
      return memory
    }
  }

  /// Gives back a buffer `take` gave, for another file to use.
  func giveBack(_ buffer: UnsafeMutableRawPointer) {
    state.withLock { $0.idle.append(Int(bitPattern: buffer)) }
  }
}
