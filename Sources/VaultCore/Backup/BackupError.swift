/// Why a backup, check or restore could not be done, beyond what the remote answered
/// (`RemoteError`). One lowercase line each.
public enum BackupError: Error, Equatable, CustomStringConvertible {
  /// Another backup of this vault to the remote is running.
  case busy(remote: String)
  /// Blobs kept vanishing under the backup (photos deleted for good as it ran).
  case vaultKeptChanging(rounds: Int)
  /// The remote holds no manifest: no backup there was ever complete.
  case noBackup(remote: String)
  /// A restore's folder holds files that are not an earlier restore's of the remote.
  case notARestoreFolder(path: String, file: String)
  /// The remote's manifest lists no file (a backup always holds `vault.json`).
  case emptyManifest(remote: String)
  /// The remote holds another vault's backup (its `vault.json`, written once when a vault
  /// is made, differs from this vault's).
  case anotherVaultsBackup(remote: String)

  public var description: String {
    switch self {
    case .busy(let remote):
      return "another backup of this vault to '\(RemoteRedaction.redacted(remote))' is running"
    case .vaultKeptChanging(let rounds):
      return
        "photos kept being deleted for good while the backup ran (\(rounds) tries); nothing is lost, run it again"
    case .noBackup(let remote):
      return "'\(RemoteRedaction.redacted(remote))' holds no complete backup (no manifest)"
    case .notARestoreFolder(let path, let file):
      return "'\(path)' is not empty and not an earlier restore of this backup: it holds '\(file)'"
    case .emptyManifest(let remote):
      return "the manifest on '\(remote)' lists no file: the backup there is not whole"
    case .anotherVaultsBackup(let remote):
      return "'\(remote)' holds the backup of another vault (its vault.json differs from this vault's)"
    }
  }
}
