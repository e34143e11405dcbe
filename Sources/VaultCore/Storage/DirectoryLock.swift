import Foundation

/// An advisory lock (flock) on a space folder: exclusive for writers, shared for readers.
/// Released when the value is released or the process ends.
final class DirectoryLock {
  enum Mode { case shared, exclusive }

  private let descriptor: Int32

  init(path: String, mode: Mode) throws {
    descriptor = openVaultFile(path, flags: O_DIRECTORY)
    guard descriptor >= 0 else { throw VaultError.posix(path) }
    let operation = mode == .exclusive ? LOCK_EX : LOCK_SH
    while flock(descriptor, operation) != 0 {
      if errno == EINTR { continue }
      let error = VaultError.posix(path)
      close(descriptor)
      throw error
    }
  }

  deinit {
    close(descriptor)
  }
}
