import Foundation

/// The folder an export writes into: either one the user named (made if missing), or a
/// new `vault-export-<date>` folder. Folders it makes are private to the user (0700): the
/// photos in them are plain.
public enum ExportTarget {
  /// Checks, without changing anything, that `path` is a folder that can be written, or
  /// can be made: its nearest existing ancestor is a writable folder.
  public static func check(_ path: String) throws {
    var candidate = path.isEmpty ? "." : path
    while true {
      var info = stat()
      if stat(candidate, &info) == 0 {
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
          throw VaultError.io(
            path: candidate, reason: "not a folder, so the export folder cannot be made there")
        }
        guard access(candidate, W_OK | X_OK) == 0 else {
          throw VaultError.io(
            path: candidate, reason: "cannot write there: \(String(cString: strerror(errno)))")
        }
        return
      }
      guard errno == ENOENT else { throw VaultError.posix(candidate) }
      candidate = parentFolder(candidate)
    }
  }

  /// Makes `path` and its missing parents (mode 0700); an existing folder is used as it is.
  public static func make(_ path: String) throws {
    var info = stat()
    if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
      throw VaultError.io(path: path, reason: "not a folder")
    }
    try makeDirectories(path)
  }

  /// Makes a new folder `vault-export-<date>` in `parent` (` (1)`, ` (2)`… when taken),
  /// mode 0700, and returns its path.
  public static func makeDated(in parent: String = ".", now: Date = Date()) throws -> String {
    var parts = tm()
    var seconds = time_t(now.timeIntervalSince1970)
    localtime_r(&seconds, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    strftime(&buffer, buffer.count, "vault-export-%Y-%m-%d", &parts)
    let base = String(nulTerminated: buffer)
    for number in 0... {
      let name = number == 0 ? base : "\(base) (\(number))"
      let path = parent == "." ? name : parent + "/" + name
      if mkdir(path, 0o700) == 0 {
        try syncDirectory(parent)
        return path
      }
      if errno != EEXIST { throw VaultError.posix(path) }
    }
    fatalError("unreachable")
  }
}
