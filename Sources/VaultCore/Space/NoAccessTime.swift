import Foundation

// Reading a space must not tell an observer which space was opened and when: every vault
// file and folder is opened with O_NOATIME, so that reads leave access times alone.

/// Linux's O_NOATIME (as on x86-64 and arm64), which Swift's Glibc does not import
/// (glibc defines it only under _GNU_SOURCE).
private let noAccessTime: Int32 = 0o1_000_000

/// Linux's O_DIRECT, which Swift's Glibc does not import either (it differs on arm64).
#if arch(arm64)
  private let directIO: Int32 = 0o200_000
#else
  private let directIO: Int32 = 0o40_000
#endif

/// Opens the vault file at `path` again, for direct I/O (reads that bypass the page cache,
/// in whole blocks), as `openVaultFile` opens it otherwise; -1 where its file system does
/// not take direct I/O. The caller checks that it is the file it opened first.
func openVaultFileForDirectIO(_ path: String) -> Int32 {
  openWithoutAccessTime(path, flags: O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | directIO)
}

/// Opens `path` to read without updating its access time. The kernel allows O_NOATIME only
/// to the file's owner (and root) and says EPERM to anyone else: then it is opened without
/// it. Returns the descriptor, or -1 with `errno` set.
private func openWithoutAccessTime(_ path: String, flags: Int32) -> Int32 {
  let descriptor = open(path, O_RDONLY | O_CLOEXEC | flags | noAccessTime)
  if descriptor >= 0 || errno != EPERM { return descriptor }
  return open(path, O_RDONLY | O_CLOEXEC | flags)
}

/// Opens a vault file (a key, a header, a blob, a journal file) to read: the one way every
/// such file is opened. Whoever can write to the vault folder can put anything at a file's
/// name, so the open never blocks (O_NONBLOCK: a FIFO would wait for a writer for ever, and
/// the command with it), never follows a link (O_NOFOLLOW: a link can point anywhere), and
/// the file opened must be a regular file (fstat), or it is named in the error. Throws `.io`.
func openVaultFile(_ path: String) throws -> Int32 {
  try openVaultFileAndSize(path).descriptor
}

/// Opens a vault file as `openVaultFile` does; its descriptor, and its size then.
func openVaultFileAndSize(_ path: String) throws -> (descriptor: Int32, size: Int) {
  let descriptor = openWithoutAccessTime(path, flags: O_NONBLOCK | O_NOFOLLOW | O_NOCTTY)
  guard descriptor >= 0 else {
    if errno == ELOOP { throw VaultError.io(path: path, reason: notRegularFile) }
    throw VaultError.posix(path)
  }
  var info = stat()
  guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
    close(descriptor)
    throw VaultError.io(path: path, reason: notRegularFile)
  }
  return (descriptor, Int(info.st_size))
}

/// Why `openVaultFile` refuses what it found at a vault file's name.
let notRegularFile = "not a regular file (vault never reads a link, FIFO, device or folder in a vault)"

/// Opens a vault folder to list or lock it, without updating its access time; a link at
/// `path` is followed only when `followingLink` (the vault's and a space's own folder, which
/// the user may reach through a link; never a folder inside a space). Returns the
/// descriptor, or -1 with `errno` set.
func openVaultFolder(_ path: String, followingLink: Bool = true) -> Int32 {
  openWithoutAccessTime(path, flags: O_DIRECTORY | O_NONBLOCK | (followingLink ? 0 : O_NOFOLLOW))
}

/// The names in a vault folder (without "." and ".."), read without updating the folder's
/// access time. A link at `path` is not followed unless `followingLink` (see
/// `openVaultFolder`): what is listed here may be removed.
func listVaultFolder(_ path: String, followingLink: Bool = false) throws -> [String] {
  let descriptor = openVaultFolder(path, followingLink: followingLink)
  guard descriptor >= 0 else { throw VaultError.posix(path) }
  guard let directory = fdopendir(descriptor) else {
    let error = VaultError.posix(path)
    close(descriptor)
    throw error
  }
  defer { closedir(directory) }
  var names: [String] = []
  while true {
    errno = 0
    guard let entry = readdir(directory) else {
      if errno != 0 { throw VaultError.posix(path) }
      return names
    }
    let name = withUnsafeBytes(of: entry.pointee.d_name) {
      String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
    }
    if name != "." && name != ".." { names.append(name) }
  }
}
