import Foundation

/// `vault restore REMOTE --to DIR`: brings back the vault a remote's last complete backup
/// holds, exactly the files its manifest lists (`RestoreGroup`): blobs first, then the
/// journal and keys, `vault.json` last (a restore cut short is no vault at all, never one
/// that lists photos it lacks), then checks every file against the manifest (MD5 of the
/// local bytes). Run again, it goes on where it stopped: rclone skips what is whole, and a
/// torn file differs in size.
public final class VaultRestore {
  let remote: RemoteLocation
  let rclone: Rclone

  public convenience init(
    remote: RemoteLocation, environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.init(remote: remote, rclone: Rclone(environment: environment))
  }

  init(remote: RemoteLocation, rclone: Rclone) {
    self.remote = remote
    self.rclone = rclone
  }

  /// The manifest of the remote's last complete backup.
  func manifest() throws -> BackupManifest {
    guard let manifest = try BackupManifest.download(from: remote, rclone: rclone) else {
      throw BackupError.noBackup(remote: remote.text)
    }
    return manifest
  }

  /// Restores into `target`: a folder that is absent, empty, or an earlier restore's of
  /// this backup (every file it holds is one the manifest lists).
  public func restore(to target: String, stage: (TransferStage) -> Void = { _ in }) throws -> RestoreSummary {
    stage(.preparing)
    let manifest = try manifest()
    try Self.requireRestoreFolder(target, manifest: manifest)
    try makeDirectories(target)
    var summary = RestoreSummary()
    let staging = try StagingFolder(purpose: "restore")
    for (paths, newestFirst) in RestoreGroup.phases(manifest.entries.keys) {
      let progress = try fetch(paths, into: target, staging: staging, newestFirst: newestFirst) {
        stage(.transferring($0))
      }
      summary.filesFetched += progress.transfers
      summary.bytesFetched += progress.bytes
    }
    stage(.finishing)
    try Self.makePrivate(target)
    for (path, entry) in manifest.entries.sorted(by: { $0.key < $1.key }) {
      let comparison = try ManifestComparison.local(target + "/" + path, expected: entry)
      if let reason = comparison.reason {
        summary.mismatches.append(RestoreMismatch(path: path, reason: reason))
      }
      summary.filesChecked += 1
    }
    return summary
  }

  /// Fetches `paths` of `current/` into `folder` with one rclone copy (one file at a time,
  /// the newest first, when `newestFirst`).
  func fetch(
    _ paths: [String], into folder: String, staging: StagingFolder, newestFirst: Bool = false,
    progress: (RcloneProgress) -> Void
  ) throws -> RcloneProgress {
    let list = try Rclone.writeFileList(paths, to: staging.path + "/fetch.list")
    let order = newestFirst ? Rclone.newestFirst : []
    return try rclone.transfer(
      "copy", ["--files-from-raw", list, "--no-traverse"] + order + Rclone.vaultHashesItself,
      [remote.current, Rclone.localOperand(folder)],
      remote: remote.text,
      progress: progress)
  }

  /// Refuses a folder holding a file the backup does not list (another vault, other data).
  static func requireRestoreFolder(_ target: String, manifest: BackupManifest) throws {
    guard isDirectory(target) else {
      if fileExists(target) { throw BackupError.notARestoreFolder(path: target, file: target) }
      return
    }
    for file in try regularFiles(below: target) where manifest.entries[file] == nil {
      throw BackupError.notARestoreFolder(path: target, file: file)
    }
  }

  /// Every file below `folder` (folders walked, links not followed), by relative path.
  static func regularFiles(below folder: String, prefix: String = "") throws -> [String] {
    var files: [String] = []
    for name in try listVaultFolder(
      folder + (prefix.isEmpty ? "" : "/" + prefix), followingLink: prefix.isEmpty)
    {
      let relative = prefix.isEmpty ? name : prefix + "/" + name
      var info = stat()
      guard lstat(folder + "/" + relative, &info) == 0 else { continue }
      if info.st_mode & S_IFMT == S_IFDIR {
        files += try regularFiles(below: folder, prefix: relative)
      } else {
        files.append(relative)
      }
    }
    return files
  }

  /// Folders 0700 and files 0600, as vault makes them (rclone follows the umask).
  static func makePrivate(_ folder: String) throws {
    chmod(folder, 0o700)
    for name in try listVaultFolder(folder, followingLink: true) {
      let path = folder + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      if info.st_mode & S_IFMT == S_IFDIR {
        try makePrivate(path)
      } else if info.st_mode & S_IFMT == S_IFREG {
        chmod(path, 0o600)
      }
    }
  }
}
