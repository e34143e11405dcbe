import Foundation

/// A private folder (mode 0700) under $TMPDIR for what a backup or restore stages: copies of
/// ciphertext files, lists for rclone. Removed with what it holds when released.
final class StagingFolder {
  let path: String

  init(purpose: String) throws {
    var template = Array((NSTemporaryDirectory() + "vault-\(purpose)-XXXXXX").utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw VaultError.posix(NSTemporaryDirectory())
    }
    path = String(cString: made)
  }

  deinit {
    removeTree(path)
  }

  /// A new, empty folder inside, for one round of a backup.
  func folder(_ name: String) throws -> String {
    let folder = path + "/" + name
    removeTree(folder)
    guard mkdir(folder, 0o700) == 0 else { throw VaultError.posix(folder) }
    return folder
  }
}
