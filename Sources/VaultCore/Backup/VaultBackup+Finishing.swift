import Foundation

// The steps of a backup after the blobs: the journal and keys, removals, the manifest.
extension VaultBackup {
  /// Sends the journal, key and header files that differ from `current/`'s through
  /// `incoming/`, and moves them in, newest first; the versions they replace (a segment
  /// before it grew) go to `removed/<stamp>` like removals, so that a vault whose files were
  /// encrypted or damaged cannot take the backup's with it.
  func sendSmallFiles(
    _ capture: VaultCapture, staging: String, remoteFiles: [String: RemoteFile], summary: inout BackupSummary
  ) throws {
    let changed = capture.staged.filter { path, entry in
      remoteFiles[path]?.size != entry.size || previous.entries[path]?.md5 != entry.md5
    }
    guard !changed.isEmpty else { return }
    let list = try Rclone.writeFileList(changed.keys, to: staging + ".list")
    try rclone.run(
      "copy", ["--files-from-raw", list, "--no-traverse"], [Rclone.localOperand(staging), remote.incoming],
      remote: remote.text)
    try rclone.run(
      "move",
      Rclone.newestFirst + ["--delete-empty-src-dirs", "--backup-dir", remote.removed(stamp)],
      [remote.incoming, remote.current], remote: remote.text)
    summary.filesSent += changed.count
    summary.bytesSent += changed.values.reduce(0) { $0 + $1.size }
  }

  /// Moves `paths` of `current/` into `removed/<stamp>`.
  func moveAside(_ paths: [String], summary: inout BackupSummary) throws {
    guard !paths.isEmpty else { return }
    let staging = try StagingFolder(purpose: "removal")
    let list = try Rclone.writeFileList(paths, to: staging.path + "/removed.list")
    try rclone.run(
      "move", ["--files-from-raw", list, "--no-traverse"], [remote.current, remote.removed(stamp)],
      remote: remote.text)
    summary.filesRemoved = paths.count
    summary.keptUntil = RemovalStamp(now).expiry(afterDays: graceDays)
  }

  /// Purges the folders of `removed/` among `folders` whose grace is over; how many went.
  func purgeRemoved(_ folders: [String]) throws -> Int {
    var purged = 0
    for name in Set(folders) {
      guard let stamp = RemovalStamp(name: name), stamp.expiry(afterDays: graceDays) <= now else { continue }
      do {
        try rclone.run("purge", [], [remote.removed(name)], remote: remote.text)
        purged += 1
      } catch RemoteError.notFound {
        // This run's, which it did not need.
      }
    }
    return purged
  }

  /// The manifest of `current/` as the capture left it: each file's size and the MD5 of the
  /// bytes sent (this run's, the previous manifest's for a file sent before, or the local
  /// file's hashed now when neither knows it).
  func manifest(
    of capture: VaultCapture, remoteFiles: [String: RemoteFile]
  ) throws -> BackupManifest {
    var manifest = BackupManifest()
    for (path, entry) in capture.staged { manifest.entries[path] = entry }
    // An original offloaded to another remote is not in this backup.
    for (path, entry) in capture.offloaded where remoteFiles[path] != nil {
      let size = entry.size >= 0 ? entry.size : remoteFiles[path]?.size ?? 0
      manifest.entries[path] = BackupManifest.Entry(size: size, md5: entry.md5)
    }
    for (path, size) in capture.blobs {
      if let remote = remoteFiles[path], isAltered(path, size: size, remote: remote) {
        manifest.entries[path] = previous.entries[path]
      } else if let sent = sentHashes[path] {
        manifest.entries[path] = BackupManifest.Entry(size: size, md5: sent)
      } else if let known = previous.entries[path], known.size == size, known.md5 != nil {
        manifest.entries[path] = known
      } else if let hashed = try FileMD5.of(vault + "/" + path) {
        manifest.entries[path] = BackupManifest.Entry(size: hashed.size, md5: hashed.md5)
      } else {
        manifest.entries[path] = BackupManifest.Entry(size: size, md5: nil)
      }
    }
    return manifest
  }

  /// Writes the manifest to `incoming/manifest`, then moves it into place whole.
  func write(_ manifest: BackupManifest, staging: String) throws {
    let file = staging + "/" + RemoteLocation.manifestFile
    try writeFileAtomically(manifest.encoded(), to: file)
    let incoming = remote.incoming + "/" + RemoteLocation.manifestFile
    try rclone.run("copyto", [], [Rclone.localOperand(file), incoming], remote: remote.text)
    try rclone.run("moveto", [], [incoming, remote.manifest], remote: remote.text)
  }
}
