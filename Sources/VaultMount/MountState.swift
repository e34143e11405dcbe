import Foundation
import VaultCore

/// What the file system's callbacks share, on FUSE's threads: the tree (swapped whole when
/// the space changes) and the open files.
final class MountState {
  /// Opens a photo's original for reading ranges, its record checked when a read reaches its
  /// end: the browser's data source's, which reads only the blob and the key (safe on
  /// FUSE's threads).
  let originalRanges: (PhotoRecord) throws -> OriginalRangeReader
  let owner = (uid: getuid(), gid: getgid())
  /// The folders' modification time: when the mount started.
  let folderTime: timespec
  /// The readers of all open files: 32 decrypted chunks (2 MiB of locked memory) at most,
  /// twice the threads that serve reads.
  let readers = ReaderPool(limit: 32)
  /// Told of a photo that cannot be read (damaged, or deleted meanwhile).
  var onProblem: (String) -> Void = { _ in }

  private let treeLock = NSLock()
  private var currentTree: MountTree
  private let handleLock = NSLock()
  private var handles: [UInt64: AnyObject] = [:]
  private var lastHandle: UInt64 = 0

  init(originalRanges: @escaping (PhotoRecord) throws -> OriginalRangeReader, tree: MountTree) {
    self.originalRanges = originalRanges
    currentTree = tree
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    folderTime = now
  }

  var tree: MountTree {
    treeLock.lock()
    defer { treeLock.unlock() }
    return currentTree
  }

  /// Puts `newer` in place of the tree; returns the one it replaces.
  func swapTree(_ newer: MountTree) -> MountTree {
    treeLock.lock()
    defer { treeLock.unlock() }
    let older = currentTree
    currentTree = newer
    return older
  }

  /// Keeps `object` (an open file or folder) under a new number for `fuse_file_info.fh`.
  func keep(_ object: AnyObject) -> UInt64 {
    handleLock.lock()
    defer { handleLock.unlock() }
    lastHandle += 1
    handles[lastHandle] = object
    return lastHandle
  }

  func handle<T: AnyObject>(_ number: UInt64, as type: T.Type) -> T? {
    handleLock.lock()
    defer { handleLock.unlock() }
    return handles[number] as? T
  }

  func drop(_ number: UInt64) {
    handleLock.lock()
    let object = handles.removeValue(forKey: number)
    handleLock.unlock()
    // Released outside the lock: an open file's reader wipes its chunk as it goes.
    withExtendedLifetime(object) {}
  }

  /// Lets go of every open file at unmount: their readers wipe the chunks they hold.
  func dropAll() {
    handleLock.lock()
    let all = handles
    handles.removeAll()
    handleLock.unlock()
    withExtendedLifetime(all) {}
  }
}

/// An open file. Its reads take readers from the mount's pool (`ReaderPool`), so that the
/// kernel's read-ahead, several reads at once, decrypts on several cores, while the
/// decrypted chunks of all open files together stay bounded.
final class OpenOriginal {
  let record: PhotoRecord
  private let pool: ReaderPool
  private let openReader: () throws -> OriginalRangeReader

  init(record: PhotoRecord, pool: ReaderPool, openReader: @escaping () throws -> OriginalRangeReader) {
    self.record = record
    self.pool = pool
    self.openReader = openReader
  }

  deinit {
    pool.close(ObjectIdentifier(self))
  }

  /// Opens a reader now, so that an original that does not open fails `open`, not a read.
  func openFirstReader() throws {
    pool.giveBack(try pool.take(for: ObjectIdentifier(self), open: openReader), of: ObjectIdentifier(self))
  }

  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let reader = try pool.take(for: ObjectIdentifier(self), open: openReader)
    defer { pool.giveBack(reader, of: ObjectIdentifier(self)) }
    return try reader.read(at: offset, into: buffer)
  }
}

/// An open folder: its listing as of the tree it was opened in.
final class OpenFolder {
  let tree: MountTree
  let folder: Int

  init(tree: MountTree, folder: Int) {
    self.tree = tree
    self.folder = folder
  }
}
