import Dispatch
import Foundation

/// A blob's file read in windows (`WindowLayout`: small ones at its start, then big ones),
/// a few of them kept, and the next ones read ahead on threads of their own while the chunks
/// of the current one are decrypted:
/// for a reader of whole files through several readers at once (`vault mount`, whose FUSE
/// threads share one of these per open file). The windows are read with direct I/O where
/// the file system allows it: the disk's bytes land in the window without the page cache,
/// whose copy into a reader's buffer was most of the mount's CPU time (perf of a cold read
/// of a 1 GiB video: 38% in `copy_page_to_iter` under `pread`). It holds ciphertext only.
/// Thread-safe; a read that finds no window free (all of its buffers in use) reads the file
/// directly, as `LocalBlobFile` does.
package final class ReadAheadBlobFile: BlobSource {
  package var length: Int { file.length }
  /// Threads reading ahead for one file, so windows in flight at once.
  static let threads = 3

  private let file: LocalBlobFile
  /// The same file opened for direct I/O, if its file system allows it; else windows are
  /// read through `file`.
  private let direct: Int32?
  private let layout: WindowLayout
  /// Told the index of each window about to be read from the disk, on the thread reading
  /// it (for tests).
  private let willRead: (@Sendable (Int) -> Void)?
  private let state = WaitableMutex(Windows())
  /// The threads that read ahead, window `n` on thread `n % threads`: a disk serves several
  /// reads at once faster than one after another (a cold 1 GiB file read in 1 MiB pieces
  /// with direct I/O: 1.4-1.6 s by one reader, 0.8-1.25 s by two).
  private let readingAhead = (0..<ReadAheadBlobFile.threads).map { _ in
    DispatchQueue(label: "vault.blob-read-ahead")
  }

  private struct Windows {
    var all: [Window] = []
    /// The last window asked for ahead of time: the next reads ahead start after it.
    var aheadThrough = -1
    var uses = 0
  }

  /// Reads the blob `file` holds, which was opened at `path`.
  package init(
    _ file: LocalBlobFile, path: String, layout: WindowLayout = .mount,
    willRead: (@Sendable (Int) -> Void)? = nil
  ) {
    self.file = file
    self.layout = layout
    self.willRead = willRead
    direct = Self.openDirect(path, sameAs: file)
  }

  /// Reads in windows of `buffers`' size throughout, `windowsAhead` of them ahead.
  convenience init(
    _ file: LocalBlobFile, path: String, buffers: WindowBuffers, windowsAhead: Int = 3,
    willRead: (@Sendable (Int) -> Void)? = nil
  ) {
    self.init(
      file, path: path, layout: WindowLayout(buffers: buffers, windowsAhead: windowsAhead), willRead: willRead
    )
  }

  deinit {
    // The thread reading ahead holds this file until it is done with it.
    for window in state.withLock({ $0.all }) { window.buffers.giveBack(window.bytes) }
    if let direct { close(direct) }
  }

  /// `path` opened again for direct I/O, if its file system takes it and it is still the
  /// file `file` holds (not one renamed over it meanwhile).
  private static func openDirect(_ path: String, sameAs file: LocalBlobFile) -> Int32? {
    let descriptor = openVaultFileForDirectIO(path)
    guard descriptor >= 0 else { return nil }
    guard file.isSameFile(as: descriptor) else {
      close(descriptor)
      return nil
    }
    return descriptor
  }

  package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    var total = 0
    var lastWindow: Int?
    while total < buffer.count, offset + total < length {
      let place = offset + total
      let index = layout.index(of: place)
      let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[total...])
      guard let window = try use(index) else {
        // No window free: read this piece the plain way.
        total += try file.read(at: place, into: rest)
        break
      }
      let start = place - layout.start(of: index)
      let count = min(window.count - start, rest.count)
      if count > 0 { rest.baseAddress!.copyMemory(from: window.bytes + start, byteCount: count) }
      letGo(window)
      lastWindow = index
      guard count > 0 else { break }
      total += count
    }
    if let lastWindow { readAhead(after: lastWindow) }
    return total
  }

  /// The bytes in place when they lie in one window (read now if it is not there yet).
  package func withBytesInPlace<Result>(
    at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) throws -> Result? {
    let index = layout.index(of: offset)
    guard layout.holds(count, at: offset, in: index, length: length), let window = try use(index)
    else { return nil }
    defer {
      letGo(window)
      readAhead(after: index)
    }
    let start = offset - layout.start(of: index)
    guard window.count - start >= count else { return nil }
    return try body(UnsafeRawBufferPointer(start: window.bytes + start, count: count))
  }

  /// Window `index`, read now unless it is there or being read (then waited for); nil when
  /// no buffer is free for it. The caller lets it go (`letGo`). A reader reading it now
  /// asks for the windows after it first; a reading-ahead thread does not (`asksAhead`),
  /// or reading ahead would go on to the file's end.
  private func use(_ index: Int, asksAhead: Bool = true) throws -> Window? {
    let (window, toRead) = state.withLock(
      waiting: { windows in
        windows.all.contains { $0.index == index && !$0.isRead } ? .untilWoken : .no
      },
      then: { windows -> (Window?, Bool) in
        windows.uses += 1
        if let window = windows.all.first(where: { $0.index == index }) {
          window.users += 1
          window.lastUse = windows.uses
          return (window, false)
        }
        guard let window = freeWindow(&windows, for: index) else { return (nil, false) }
        window.index = index
        window.isRead = false
        window.users = 1
        window.lastUse = windows.uses
        return (window, true)
      })
    guard let window, toRead else { return window }
    // The windows after this one are asked for before it is read, not after: the disk
    // serves them together. (A cold photo's first window was read alone at open, and its
    // next ones asked for only once it was in: 1.5 ms of a 2.9 MiB photo's 4-7 ms through
    // the mount, in a trace of fuse and block events.) The reading-ahead threads read no
    // window twice: they wait for this one, or take theirs as it is.
    if asksAhead { readAhead(after: index) }
    willRead?(index)
    do {
      window.count = try fill(window.bytes, at: layout.start(of: index), size: layout.size(of: index))
    } catch {
      state.withLock { windows in windows.all.removeAll { $0 === window } }
      window.buffers.giveBack(window.bytes)
      state.wakeAll()
      throw error
    }
    state.withLock { _ in window.isRead = true }
    state.wakeAll()
    return window
  }

  /// A window to read window `index` into: a new one while this file keeps fewer of its
  /// size than the layout allows and a buffer is free, else the one of its size used
  /// longest ago that no reader holds.
  private func freeWindow(_ windows: inout Windows, for index: Int) -> Window? {
    let buffers = layout.buffers(of: index)
    let held = windows.all.count { $0.buffers === buffers }
    if held < layout.kept(of: buffers), let bytes = buffers.take() {
      let window = Window(bytes: bytes, buffers: buffers)
      windows.all.append(window)
      return window
    }
    return windows.all.filter { $0.buffers === buffers && $0.users == 0 && $0.isRead }
      .min { $0.lastUse < $1.lastUse }
  }

  private func letGo(_ window: Window) {
    state.withLock { _ in window.users -= 1 }
  }

  /// Returns once the reading-ahead threads are done with what they were asked for (for
  /// tests).
  func waitForReadsAhead() {
    for queue in readingAhead { queue.sync {} }
  }

  /// Asks for the windows within `layout.ahead` bytes after window `index` on the
  /// reading-ahead threads, those not asked for already (the reads of a file going forward
  /// ask for each once).
  private func readAhead(after index: Int) {
    guard length > 0 else { return }
    let last = layout.lastAhead(after: index, length: length)
    let first = state.withLock { windows -> Int in
      let first =
        windows.aheadThrough > index && windows.aheadThrough <= last ? windows.aheadThrough + 1 : index + 1
      if first <= last { windows.aheadThrough = last }
      return first
    }
    guard first <= last else { return }
    for ahead in first...last {
      readingAhead[ahead % Self.threads].async {
        // A failure here is the reader's to meet, when it gets there.
        if let window = try? self.use(ahead, asksAhead: false) { self.letGo(window) }
      }
    }
  }

  /// Reads the window of `size` bytes at `offset` into `bytes`: its length, short only at
  /// the file's end.
  private func fill(_ bytes: UnsafeMutableRawPointer, at offset: Int, size: Int) throws -> Int {
    let wanted = min(size, length - offset)
    if let direct {
      // Direct I/O reads whole blocks: the window's length rounded up (the file ends sooner).
      let blocks = (wanted + WindowBuffers.alignment - 1) / WindowBuffers.alignment * WindowBuffers.alignment
      while true {
        let count = pread(direct, bytes, blocks, off_t(offset))
        if count >= wanted { return wanted }
        if count < 0 && errno == EINTR { continue }
        // Short or refused (a file system that opens for direct I/O but will not read so):
        // the plain way.
        break
      }
    }
    return try file.read(at: offset, into: UnsafeMutableRawBufferPointer(start: bytes, count: wanted))
  }
}

/// A window of a `ReadAheadBlobFile`: one of the shared buffers (and whose), the part of the
/// file it holds, and how many readers copy from it now.
///
/// `@unchecked Sendable`: its fields change only under its file's lock, and its bytes only
/// while it is being read, when no reader copies from it (they wait for `isRead`).
private final class Window: @unchecked Sendable {
  let bytes: UnsafeMutableRawPointer
  let buffers: WindowBuffers
  var index = -1
  var count = 0
  var isRead = false
  var users = 0
  var lastUse = 0

  init(bytes: UnsafeMutableRawPointer, buffers: WindowBuffers) {
    self.bytes = bytes
    self.buffers = buffers
  }
}
