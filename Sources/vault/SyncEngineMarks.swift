import Foundation
import Synchronization

/// Whether a vault folder is kept in sync, as far as the folders show: a sync engine's mark
/// in it or in a folder above it. Only then can a password that opens nothing be a new one
/// changed on another copy that the sync has not brought yet.
enum SyncEngineMarks {
  /// Syncthing's folder marker and ignore file, Dropbox's and Resilio Sync's folders.
  static let names: Set<String> = [".stfolder", ".stignore", ".dropbox", ".sync"]
  /// The Nextcloud and ownCloud clients' journals (`.sync_<hash>.db`, `._sync_<hash>.db`).
  static let prefixes = [".sync_", "._sync_"]

  /// The vault folder the command opened, if it opened one.
  static let openedVault = Mutex<String?>(nil)

  static func keptInSync(_ vaultPath: String) -> Bool {
    var folder = URL(fileURLWithPath: vaultPath).standardizedFileURL
    while true {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      if entries.contains(where: { names.contains($0) || prefixes.contains(where: $0.hasPrefix) }) {
        return true
      }
      let parent = folder.deletingLastPathComponent()
      if parent.path == folder.path { return false }
      folder = parent
    }
  }

  /// Whether the vault the command opened is kept in sync.
  static var openedVaultKeptInSync: Bool {
    openedVault.withLock { $0 }.map(keptInSync) ?? false
  }
}
