import Foundation
import VaultCore

/// What the file system's callbacks share, on FUSE's threads: the tree (swapped whole when
/// the space changes) and the open files.
final class MountState {
  let space: Space
  let owner = (uid: getuid(), gid: getgid())
  /// The folders' modification time: when the mount started.
  let folderTime: timespec
  /// Told of a photo that cannot be read (damaged, or deleted meanwhile).
  var onProblem: (String) -> Void = { _ in }

  private let treeLock = NSLock()
  private var currentTree: MountTree
  private let handleLock = NSLock()
  private var handles: [UInt64: AnyObject] = [:]
  private var lastHandle: UInt64 = 0

  init(space: Space, tree: MountTree) {
    self.space = space
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

/// An open file: a few readers of the original, each with its one decrypted chunk (in
/// locked memory, wiped when the reader goes). A reader is not thread-safe, and the kernel
/// sends a file's read-ahead as several reads at once: each read takes a reader of its
/// own, so that they decrypt on several cores, up to `maximumReaders` (opened as needed).
final class OpenOriginal {
  static let maximumReaders = 4
  let record: PhotoRecord
  private let openReader: () throws -> OriginalRangeReader
  private let condition = NSCondition()
  private var idle: [OriginalRangeReader]
  private var opened = 1

  init(
    record: PhotoRecord, reader: OriginalRangeReader, openReader: @escaping () throws -> OriginalRangeReader
  ) {
    self.record = record
    idle = [reader]
    self.openReader = openReader
  }

  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let reader = try takeReader()
    defer { giveBack(reader) }
    return try reader.read(at: offset, into: buffer)
  }

  private func takeReader() throws -> OriginalRangeReader {
    condition.lock()
    while idle.isEmpty && opened >= Self.maximumReaders { condition.wait() }
    if let reader = idle.popLast() {
      condition.unlock()
      return reader
    }
    opened += 1
    condition.unlock()
    do {
      return try openReader()
    } catch {
      condition.lock()
      opened -= 1
      condition.signal()
      condition.unlock()
      throw error
    }
  }

  private func giveBack(_ reader: OriginalRangeReader) {
    condition.lock()
    idle.append(reader)
    condition.signal()
    condition.unlock()
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
