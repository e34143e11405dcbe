import Foundation
import Synchronization
import VaultCore

/// What the file system's callbacks share, on FUSE's threads: the tree (swapped whole when
/// the space changes) and the open files.
final class MountState: Sendable {
  /// Opens photos' originals: each open file's blob, and readers of ranges over it.
  let originals: OriginalOpener
  let owner = (uid: getuid(), gid: getgid())
  /// The folders' modification time: when the mount started.
  let folderTime: timespec
  /// The readers of all open files: 32 decrypted chunks (2 MiB of locked memory) at most,
  /// twice the threads that serve reads.
  let readers = ReaderPool(limit: 32)
  /// The blocks of open files decrypted ahead of their reads: 12 of 256 KiB (3 MiB of
  /// locked memory) at most, for all of them.
  let decryptAhead = DecryptAhead(slots: 12)
  /// Told of a photo that cannot be read (damaged, or deleted meanwhile).
  private let problemHandler = Mutex<@Sendable (String) -> Void>({ _ in })
  private let currentTree: Mutex<MountTree>
  private let handles = Mutex(Handles())

  /// The open files and folders, by their number in `fuse_file_info.fh`.
  private struct Handles {
    var objects: [UInt64: any AnyObject & Sendable] = [:]
    var last: UInt64 = 0
  }

  init(originals: OriginalOpener, tree: MountTree) {
    self.originals = originals
    currentTree = Mutex(tree)
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    folderTime = now
  }

  var onProblem: @Sendable (String) -> Void {
    get { problemHandler.withLock { $0 } }
    set { problemHandler.withLock { $0 = newValue } }
  }

  var tree: MountTree { currentTree.withLock { $0 } }

  /// Puts `newer` in place of the tree; returns the one it replaces.
  func swapTree(_ newer: MountTree) -> MountTree {
    currentTree.withLock { tree in
      defer { tree = newer }
      return tree
    }
  }

  /// Keeps `object` (an open file or folder) under a new number for `fuse_file_info.fh`.
  func keep(_ object: any AnyObject & Sendable) -> UInt64 {
    handles.withLock { handles in
      handles.last += 1
      handles.objects[handles.last] = object
      return handles.last
    }
  }

  func handle<T: AnyObject & Sendable>(_ number: UInt64, as type: T.Type) -> T? {
    handles.withLock { $0.objects[number] as? T }
  }

  func drop(_ number: UInt64) {
    let object = handles.withLock { $0.objects.removeValue(forKey: number) }
    // Released outside the lock: an open file's reader wipes its chunk as it goes.
    withExtendedLifetime(object) {}
  }

  /// Lets go of every open file at unmount: their readers wipe the chunks they hold.
  func dropAll() {
    let all = handles.withLock { handles in
      defer { handles.objects.removeAll() }
      return handles.objects
    }
    withExtendedLifetime(all) {}
  }
}

/// An open file. Its reads take readers from the mount's pool (`ReaderPool`), so that the
/// kernel's read-ahead, several reads at once, decrypts on several cores, while the
/// decrypted chunks of all open files together stay bounded; the blocks after the one read
/// are decrypted ahead meanwhile (`DecryptAhead`).
final class OpenOriginal: Sendable {
  let file: MountTree.File
  private let pool: ReaderPool
  /// Nil for a file whose blocks are not decrypted ahead (an offloaded original).
  private let ahead: DecryptAhead?
  private let openReader: @Sendable () throws -> OriginalRangeReader

  init(
    file: MountTree.File, pool: ReaderPool, ahead: DecryptAhead?,
    openReader: @escaping @Sendable () throws -> OriginalRangeReader
  ) {
    self.file = file
    self.pool = pool
    self.ahead = ahead
    self.openReader = openReader
  }

  deinit {
    ahead?.forget(ObjectIdentifier(self))
    pool.close(ObjectIdentifier(self))
  }

  /// Opens a reader now, so that an original that does not open fails `open`, not a read.
  func openFirstReader() throws {
    pool.giveBack(try pool.take(for: ObjectIdentifier(self), open: openReader), of: ObjectIdentifier(self))
  }

  /// Hands `body` up to `count` bytes from `offset` (as `OriginalRangeReader.read` reads
  /// them), decrypted ahead or now, and wiped after.
  func read<Result>(at offset: Int64, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) throws
    -> Result
  {
    guard let ahead else { return try decryptingNow(at: offset, count: count, body) }
    return try ahead.read(self, at: offset, count: count, body)
  }

  /// Hands `body` up to `count` bytes from `offset` decrypted now, into a buffer that wipes
  /// them when it goes.
  func decryptingNow<Result>(
    at offset: Int64, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) throws -> Result {
    let bytes = PinnedBytes(count: count)
    let filled = try decrypt(
      at: offset, into: UnsafeMutableRawBufferPointer(start: bytes.buffer.baseAddress!, count: count))
    return try body(UnsafeRawBufferPointer(start: bytes.buffer.baseAddress!, count: filled))
  }

  /// Copies up to `buffer.count` bytes from `offset` into `buffer`, decrypting them now with
  /// a reader of the pool.
  func decrypt(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let reader = try pool.take(for: ObjectIdentifier(self), open: openReader)
    defer { pool.giveBack(reader, of: ObjectIdentifier(self)) }
    return try reader.read(at: offset, into: buffer)
  }
}

/// An open folder: its listing as of the tree it was opened in.
final class OpenFolder: Sendable {
  let tree: MountTree
  let folder: Int

  init(tree: MountTree, folder: Int) {
    self.tree = tree
    self.folder = folder
  }
}
