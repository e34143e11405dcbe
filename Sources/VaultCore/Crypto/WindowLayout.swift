/// Where the windows of a `ReadAheadBlobFile` lie in its file: `rampCount` small ones from
/// the start, then big ones, and how far ahead of a read they are read.
///
/// Small first, because a reader waits for the whole window its first bytes are in: a
/// photo read through the mount got its first bytes when a 1 MiB window was in (0.9 ms with
/// the next two read beside it), and in 256 KiB windows a fifth of that; its 200 photos
/// read in 460 ms against 575 (photoab, 22:17). Big after, because a long file streams
/// faster with more of it in flight: the 1 GiB video took 1,164 ms in 256 KiB windows
/// against 464 ms in 1 MiB ones (the same run), as the kernel's own read-ahead grows.
package struct WindowLayout: Sendable {
  let small: WindowBuffers
  let big: WindowBuffers
  let rampCount: Int
  /// Bytes read ahead of the end of the window a read needed last.
  let ahead: Int

  /// The mount's: four windows of 256 KiB, then 1 MiB ones; 3 MiB read ahead.
  package static let mount = WindowLayout(small: .small, big: .shared, rampCount: 4, ahead: 3 << 20)

  init(small: WindowBuffers, big: WindowBuffers, rampCount: Int, ahead: Int) {
    precondition(rampCount >= 0 && ahead > 0)
    self.small = small
    self.big = big
    self.rampCount = rampCount
    self.ahead = ahead
  }

  /// Windows of one size throughout, `windowsAhead` of them read ahead.
  init(buffers: WindowBuffers, windowsAhead: Int) {
    self.init(small: buffers, big: buffers, rampCount: 0, ahead: windowsAhead * buffers.size)
  }

  private var rampEnd: Int { rampCount * small.size }

  /// The window holding byte `offset`.
  func index(of offset: Int) -> Int {
    offset < rampEnd ? offset / small.size : rampCount + (offset - rampEnd) / big.size
  }

  func start(of index: Int) -> Int {
    index < rampCount ? index * small.size : rampEnd + (index - rampCount) * big.size
  }

  /// The buffers window `index` is read into.
  func buffers(of index: Int) -> WindowBuffers { index < rampCount ? small : big }

  func size(of index: Int) -> Int { buffers(of: index).size }

  /// The last window to be read ahead when a read needed `index`, in a file of `length`
  /// bytes: the one holding the last byte within `ahead` bytes after its end (`index`
  /// itself when the file ends there).
  func lastAhead(after index: Int, length: Int) -> Int {
    // Without adding past `length`: a file's length may be near `Int.max` (a sparse file
    // on tmpfs or XFS, written by whoever can write the vault's folder).
    let start = start(of: index)
    guard start < length else { return index }
    let end = start + min(length - start, size(of: index) + ahead)
    return max(index, self.index(of: end - 1))
  }

  /// Whether `count` bytes from `offset` lie in window `index` and in a file of `length`
  /// bytes (`offset` in that window), without adding past `length`.
  func holds(_ count: Int, at offset: Int, in index: Int, length: Int) -> Bool {
    count > 0 && offset < length && count <= length - offset
      && offset - start(of: index) + count <= size(of: index)
  }

  /// How many windows of `buffers` a file keeps at most: of the big ones, those `ahead`
  /// bytes hold, the current one, and two behind for the readers still on them (the
  /// kernel's FUSE read-ahead hands out neighbouring pieces to several threads at once); of
  /// the small ones, the ramp's.
  func kept(of buffers: WindowBuffers) -> Int {
    buffers === big ? (ahead + big.size - 1) / big.size + 3 : rampCount
  }
}
