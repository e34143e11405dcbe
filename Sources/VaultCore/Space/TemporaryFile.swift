import CVaultSystem
import Foundation

/// A new file under a temporary name in its destination folder, which becomes visible
/// under its final name only once complete and synced: temp file → fsync → rename → fsync
/// of the folder. Until then a crash leaves at most a `.tmp-*` file that verify removes.
package final class TemporaryFile {
  static let prefix = ".tmp-"
  /// Linux's O_TMPFILE (`__O_TMPFILE | O_DIRECTORY`), which Swift does not import.
  private static let openTemporary: Int32 = 0o20_000_000 | O_DIRECTORY

  let directory: String
  /// The temporary name, or nil for an unnamed file (O_TMPFILE) that a crash cannot leave
  /// behind.
  package let path: String?
  private var descriptor: Int32
  private var finished = false
  /// Whether bytes were written since the last `sync`.
  private var unsynced = true
  /// Bytes written since writeback was last started.
  private var writtenSinceWriteback = 0
  /// A file that grows past this starts its writeback every time it grows by as much again,
  /// so that the disk writes a big file (a video) while the rest of it is still being
  /// encrypted or decrypted, and the `sync` that ends it has little left to wait for.
  static let writebackStep = 8 << 20

  /// Creates an empty file, readable only by its owner, in `directory`. With `unnamed`,
  /// the file has no name at all until `moveWithoutReplacing` gives it its final one
  /// (where the file system supports it; otherwise it gets a temporary name).
  package init(in directory: String, unnamed: Bool = false) throws {
    self.directory = directory
    if unnamed {
      descriptor = open(directory, Self.openTemporary | O_WRONLY | O_CLOEXEC, 0o600)
      if descriptor >= 0 {
        path = nil
        return
      }
      if errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL { throw VaultError.posix(directory) }
    }
    let name = Self.prefix + hexString(Sodium.randomBytes(8))
    path = directory + "/" + name
    descriptor = open(directory + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw VaultError.posix(directory) }
  }

  deinit {
    if !finished { discard() }
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws {
    var offset = 0
    while offset < bytes.count {
      let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        throw VaultError.posix(directory)
      }
      offset += written
      unsynced = true
    }
    writtenSinceWriteback += bytes.count
    if writtenSinceWriteback >= Self.writebackStep { startWriteback() }
  }

  func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try write($0) }
  }

  /// Flushes the contents (and the file's times) to disk; does nothing if they were
  /// flushed since the last write.
  func sync() throws {
    guard descriptor >= 0, unsynced else { return }
    if fsync(descriptor) != 0 { throw VaultError.posix(directory) }
    unsynced = false
  }

  /// Starts writing the contents to disk without waiting, so that a later `sync` has
  /// little left to do. Only a hint: failures are left for `sync` to report.
  func startWriteback() {
    guard descriptor >= 0 else { return }
    writtenSinceWriteback = 0
    _ = vault_start_writeback(descriptor)
  }

  private func closeDescriptor() throws {
    guard descriptor >= 0 else { return }
    let status = close(descriptor)
    descriptor = -1
    if status != 0 { throw VaultError.posix(directory) }
  }

  /// Sets the modification time (and access time) before the file is moved into place.
  func setModificationTime(seconds: Int64, nanoseconds: Int32) throws {
    var times = [
      timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)),
      timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)),
    ]
    if futimens(descriptor, &times) != 0 { throw VaultError.posix(path ?? directory) }
    unsynced = true
  }

  /// Syncs, then renames over `finalPath`, replacing any file there, and syncs the folder.
  func replace(_ finalPath: String, syncFolder: Bool = true) throws {
    guard let path else { preconditionFailure("an unnamed file cannot replace another") }
    try sync()
    try closeDescriptor()
    if rename(path, finalPath) != 0 { throw VaultError.posix(finalPath) }
    finished = true
    if syncFolder { try syncDirectory(directory) }
  }

  /// Syncs (unless already synced), then gives the file `finalPath` only if nothing has that
  /// name; returns false (and keeps the temporary file) when the name is taken. The new name
  /// is durable once the folder is synced.
  func moveWithoutReplacing(to finalPath: String) throws -> Bool {
    try sync()
    let linked: Int32
    if let path {
      linked = link(path, finalPath)
    } else {
      // An unnamed file is given a name through its /proc entry.
      linked = linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, finalPath, AT_SYMLINK_FOLLOW)
    }
    if linked != 0 {
      if errno == EEXIST { return false }
      throw VaultError.posix(finalPath)
    }
    if let path { unlink(path) }
    finished = true
    try closeDescriptor()
    return true
  }

  /// A new descriptor reading the file (an unnamed one through its /proc entry), for
  /// reading back what was written; the caller closes it.
  func openForReading() throws -> Int32 {
    let reader = open(path ?? "/proc/self/fd/\(descriptor)", O_RDONLY | O_CLOEXEC)
    guard reader >= 0 else { throw VaultError.posix(path ?? directory) }
    return reader
  }

  /// Closes and removes the temporary file.
  func discard() {
    if descriptor >= 0 {
      close(descriptor)
      descriptor = -1
    }
    if !finished, let path { unlink(path) }
    finished = true
  }
}

/// Makes a folder's entries (new, renamed, removed files) durable.
func syncDirectory(_ path: String) throws {
  let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
  guard descriptor >= 0 else { throw VaultError.posix(path) }
  defer { close(descriptor) }
  if fsync(descriptor) != 0 { throw VaultError.posix(path) }
}

/// Writes a small file atomically, replacing what was there.
func writeFileAtomically(_ bytes: [UInt8], to path: String) throws {
  let directory = parentFolder(path)
  let file = try TemporaryFile(in: directory)
  try file.write(bytes)
  try file.replace(path)
}

/// Reads a whole small file.
func readWholeFile(_ path: String, limit: Int = 16 << 20) throws -> [UInt8] {
  let descriptor = try openVaultFile(path)
  defer { close(descriptor) }
  var result = [UInt8]()
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = read(descriptor, &buffer, buffer.count)
    if count < 0 {
      if errno == EINTR { continue }
      throw VaultError.posix(path)
    }
    if count == 0 { break }
    result.append(contentsOf: buffer[0..<count])
    if result.count > limit { throw VaultError.io(path: path, reason: "file is unexpectedly large") }
  }
  return result
}

/// Reads from a file descriptor until `count` bytes or the end of the file.
func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
  var total = 0
  while total < count {
    let n = read(descriptor, buffer + total, count - total)
    if n < 0 {
      if errno == EINTR { continue }
      return -1
    }
    if n == 0 { break }
    total += n
  }
  return total
}

func fileExists(_ path: String) -> Bool {
  var info = stat()
  return lstat(path, &info) == 0
}

func isDirectory(_ path: String) -> Bool {
  var info = stat()
  return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
}

/// The folder that holds `path`: "." for a bare name, "/" for a name at the root. Foundation's
/// `deletingLastPathComponent` traps on one-character names (Swift 6.3 on Linux), so vault
/// never calls it.
func parentFolder(_ path: String) -> String {
  var trimmed = Substring(path)
  while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
  guard let slash = trimmed.lastIndex(of: "/") else { return "." }
  return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
}
