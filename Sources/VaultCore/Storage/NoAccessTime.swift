import Foundation

// Reading a space must not tell an observer which space was opened and when: every vault
// file and folder is opened with O_NOATIME, so that reads leave access times alone.

/// Linux's O_NOATIME (as on x86-64 and arm64), which Swift's Glibc does not import
/// (glibc defines it only under _GNU_SOURCE).
private let noAccessTime: Int32 = 0o1_000_000

/// Opens a vault file (or, with `O_DIRECTORY` in `flags`, a folder) for reading without
/// updating its access time. The kernel allows O_NOATIME only to the file's owner (and
/// root) and says EPERM to anyone else: then the file is opened without it. Returns the
/// descriptor, or -1 with `errno` set.
func openVaultFile(_ path: String, flags: Int32 = 0) -> Int32 {
  let descriptor = open(path, O_RDONLY | O_CLOEXEC | flags | noAccessTime)
  if descriptor >= 0 || errno != EPERM { return descriptor }
  return open(path, O_RDONLY | O_CLOEXEC | flags)
}

/// The names in a vault folder (without "." and ".."), read without updating the folder's
/// access time.
func listVaultFolder(_ path: String) throws -> [String] {
  let descriptor = openVaultFile(path, flags: O_DIRECTORY)
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
