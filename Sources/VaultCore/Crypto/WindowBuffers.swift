import Foundation

/// The buffers `ReadAheadBlobFile`s read ciphertext into, shared by all of them: at most
/// `limit` exist, so what a process reads ahead stays bounded however many files it holds
/// open, and a buffer let go by one file is reused by the next (not freed and allocated
/// again, which costs a page fault for each of its pages). They hold ciphertext only, which
/// is no secret: they are neither locked nor wiped.
///
/// Buffers that fit a huge page evenly are made a huge page at a time (2 MiB, aligned, with
/// `MADV_HUGEPAGE`): a window's memory is then one physically contiguous piece, which a
/// direct read hands the disk as one segment. Made of 4 KiB pages, a 1 MiB window was 256
/// segments: on a virtio disk with a 256-entry queue (these machines') that filled the queue,
/// so the next windows' reads were put back and retried up to 0.7 ms later (a trace of block
/// events reading a photo through the mount), one window at a time.
package final class WindowBuffers: Sendable {
  /// The buffers of `vault mount`: 24 MiB of read-ahead for all its open files together.
  package static let shared = WindowBuffers(size: 1 << 20, limit: 24)
  /// The small windows of a file's start (`WindowLayout.mount`): 8 MiB, the first MiB of
  /// eight files read at once.
  package static let small = WindowBuffers(size: 1 << 18, limit: 32)

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

  /// The size of a transparent huge page on x86-64 and arm64 (with 4 KiB pages).
  static let hugePageSize = 2 << 20

  /// How many buffers one huge page holds, or 1 when they do not fit it evenly (then each
  /// is made on its own).
  var buffersPerHugePage: Int {
    size <= Self.hugePageSize && Self.hugePageSize % size == 0 ? Self.hugePageSize / size : 1
  }

  /// A buffer of `size` bytes, aligned for direct I/O, or nil when all `limit` are taken.
  func take() -> UnsafeMutableRawPointer? {
    let perHugePage = buffersPerHugePage
    let (reused, batch) = state.withLock { buffers -> (Int??, Int) in
      if let address = buffers.idle.popLast() { return (.some(address), 0) }
      guard buffers.made < limit else { return (.none, 0) }
      // A huge page's worth while the limit allows it, else one (the last few).
      let batch = buffers.made + perHugePage <= limit ? perHugePage : 1
      buffers.made += batch
      return (.some(nil), batch)
    }
    switch reused {
    case .none: return nil
    case .some(.some(let address)): return UnsafeMutableRawPointer(bitPattern: address)
    case .some(.none):
      guard let memory = batch > 1 ? Self.hugePage() : Self.pages(size) else {
        state.withLock { $0.made -= batch }
        return nil
      }
      let others = (1..<batch).map { Int(bitPattern: memory + $0 * size) }
      if !others.isEmpty { state.withLock { $0.idle += others } }
      return memory
    }
  }

  /// `count` bytes aligned to a page.
  private static func pages(_ count: Int) -> UnsafeMutableRawPointer? {
    var memory: UnsafeMutableRawPointer?
    guard posix_memalign(&memory, alignment, count) == 0 else { return nil }
    return memory
  }

  /// One huge page's bytes, aligned to its size and advised to be one (the kernel may still
  /// give 4 KiB pages: then it is as `pages` would be). Never unmapped: the buffers live as
  /// long as the process, as `pages`' do.
  private static func hugePage() -> UnsafeMutableRawPointer? {
    // Twice the size, to cut an aligned huge page out of it.
    let mapped = mmap(nil, 2 * hugePageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    guard let mapped, mapped != MAP_FAILED else { return nil }
    let start = Int(bitPattern: mapped)
    let aligned = (start + hugePageSize - 1) / hugePageSize * hugePageSize
    // What lies before the aligned page (under a page's size) and after it (the rest).
    let head = aligned - start
    if head > 0 { munmap(mapped, head) }
    munmap(UnsafeMutableRawPointer(bitPattern: aligned + hugePageSize), hugePageSize - head)
    let page = UnsafeMutableRawPointer(bitPattern: aligned)!
    _ = madvise(page, hugePageSize, MADV_HUGEPAGE)
    return page
  }

  /// Gives back a buffer `take` gave, for another file to use.
  func giveBack(_ buffer: UnsafeMutableRawPointer) {
    state.withLock { $0.idle.append(Int(bitPattern: buffer)) }
  }
}
