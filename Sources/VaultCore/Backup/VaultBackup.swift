import Foundation

/// `vault backup REMOTE`: copies the vault's ciphertext (every space; no password) to a
/// remote through rclone, ordered so that the remote's `current/` never lists a photo whose
/// files it lacks, even when killed at any moment (docs/FORMAT.md, "Backups"):
/// 1. capture each space under its shared lock (`VaultCapture`);
/// 2. send the blobs `current/` lacks (by name and size), hashing them as they go; a blob
///    deleted for good meanwhile means the journal changed: capture again;
/// 3. send the journal and key files that differ into `incoming/<run>`, then move them into
///    `current/`, newest first (a deletion arrives no later than what it deletes);
/// 4. move what `current/` has and the vault no longer does aside into `removed/<stamp>`,
///    purge older folders there whose grace is over, and what killed runs left in
///    `incoming/`;
/// 5. write the manifest last.
public final class VaultBackup {
  let vault: String
  let remote: RemoteLocation
  let rclone: Rclone
  /// How long files moved aside stay in `removed/`.
  let graceDays: Int
  let now: Date
  let cache: ManifestCache
  /// How many times the vault is captured again when blobs vanish under the backup.
  static let captureRounds = 4
  public static let defaultGraceDays = 30

  public init(
    vault: String, remote: RemoteLocation, graceDays: Int = defaultGraceDays,
    environment: [String: String] = ProcessInfo.processInfo.environment, now: Date = Date()
  ) {
    self.vault = vault
    self.remote = remote
    self.rclone = Rclone(environment: environment)
    self.graceDays = graceDays
    self.now = now
    cache = ManifestCache(vault: vault, remote: remote, environment: environment)
  }

  /// Runs the backup; `stage` is told what it does as it goes.
  public func run(stage: (TransferStage) -> Void = { _ in }) throws -> BackupSummary {
    guard Vault.exists(at: vault) else { throw VaultError.vaultNotFound(path: vault) }
    guard let lock = try cache.lock() else { throw BackupError.busy(remote: remote.text) }
    defer { close(lock) }
    stage(.preparing)
    let staging = try StagingFolder(purpose: "backup")
    let run = RemovalStamp(now).name + "-" + hexString(Sodium.randomBytes(4))
    var remoteFiles = try rclone.listFiles(in: remote.current, remote: remote) ?? [:]
    var previous = try cache.load() ?? downloadManifest() ?? BackupManifest()
    var summary = BackupSummary()
    let capture = try sendBlobs(staging: staging, remoteFiles: &remoteFiles, summary: &summary, stage: stage)
    stage(.finishing)
    try sendSmallFiles(
      capture, staging: staging.path + "/capture", run: run, remoteFiles: remoteFiles, previous: previous,
      summary: &summary)
    try moveAside(remoteFiles.keys.filter { !capture.paths.contains($0) }, summary: &summary)
    summary.foldersPurged = try purgeOldFolders(keeping: run)
    previous = try manifest(of: capture, remoteFiles: remoteFiles, previous: previous)
    try writeManifest(previous, staging: staging.path, run: run)
    try cache.store(previous)
    summary.filesOnRemote = previous.entries.count
    return summary
  }

  /// Captures the vault and sends the blobs `current/` lacks, again while blobs vanish.
  private func sendBlobs(
    staging: StagingFolder, remoteFiles: inout [String: RemoteFile], summary: inout BackupSummary,
    stage: (TransferStage) -> Void
  ) throws -> VaultCapture {
    for _ in 0..<Self.captureRounds {
      let capture = try VaultCapture.take(of: vault, into: try staging.folder("capture"))
      let missing = capture.blobs.filter { remoteFiles[$0.key]?.size != $0.value }
      let outcome = try BlobSending(rclone: rclone, remote: remote, vault: vault, staging: staging.path)
        .send(missing) { stage(.transferring($0)) }
      for (path, entry) in outcome.sent {
        remoteFiles[path] = RemoteFile(size: entry.size, md5: entry.md5)
        sentHashes[path] = entry.md5
      }
      summary.filesSent += outcome.sent.count
      summary.bytesSent += outcome.sent.values.reduce(0) { $0 + $1.size }
      if outcome.vanished.isEmpty { return capture }
      // rclone may have sent some before they went: `current/` is listed again.
      remoteFiles = try rclone.listFiles(in: remote.current, remote: remote) ?? [:]
    }
    throw BackupError.vaultKeptChanging(rounds: Self.captureRounds)
  }

  /// MD5s of the blobs this run sent.
  private var sentHashes: [String: String?] = [:]

  /// Sends the journal, key and header files that differ from `current/`'s through
  /// `incoming/<run>`, and moves them in, newest first.
  private func sendSmallFiles(
    _ capture: VaultCapture, staging: String, run: String, remoteFiles: [String: RemoteFile],
    previous: BackupManifest, summary: inout BackupSummary
  ) throws {
    let changed = capture.staged.filter { path, entry in
      remoteFiles[path]?.size != entry.size || previous.entries[path]?.md5 != entry.md5
    }
    guard !changed.isEmpty else { return }
    let list = staging + ".list"
    try writeFileAtomically(Array(changed.keys.sorted().joined(separator: "\n").utf8) + [0x0A], to: list)
    try rclone.run(
      "copy", ["--files-from-raw", list, "--no-traverse"], [staging, remote.incoming(run)],
      remote: remote.text)
    try rclone.run(
      "move", ["--check-first", "--order-by", "modtime,descending", "--transfers", "1"],
      [remote.incoming(run), remote.current], remote: remote.text)
    summary.filesSent += changed.count
    summary.bytesSent += changed.values.reduce(0) { $0 + $1.size }
  }

  /// Moves `paths` of `current/` into `removed/<stamp>`.
  private func moveAside(_ paths: [String], summary: inout BackupSummary) throws {
    guard !paths.isEmpty else { return }
    let staging = try StagingFolder(purpose: "removal")
    let list = staging.path + "/removed.list"
    try writeFileAtomically(Array(paths.sorted().joined(separator: "\n").utf8) + [0x0A], to: list)
    let stamp = RemovalStamp(now)
    try rclone.run(
      "move", ["--files-from-raw", list, "--no-traverse"], [remote.current, remote.removed(stamp.name)],
      remote: remote.text)
    summary.filesRemoved = paths.count
    summary.keptUntil = stamp.expiry(afterDays: graceDays)
  }

  /// Purges the folders of `removed/` whose grace is over, and those of `incoming/` that
  /// killed runs left; returns how many of `removed/` went.
  private func purgeOldFolders(keeping run: String) throws -> Int {
    var purged = 0
    for name in try rclone.listFolders(in: remote.path(RemoteLocation.removedFolder), remote: remote) {
      guard let stamp = RemovalStamp(name: name), stamp.expiry(afterDays: graceDays) <= now else { continue }
      try rclone.run("purge", [], [remote.removed(name)], remote: remote.text)
      purged += 1
    }
    for name in try rclone.listFolders(in: remote.path(RemoteLocation.incomingFolder), remote: remote) {
      try rclone.run("purge", [], [remote.incoming(name)], remote: remote.text)
    }
    return purged
  }

  /// The manifest of `current/` as the capture left it: each file's size and the MD5 of the
  /// bytes sent (this run's, the previous manifest's for a file sent before, or the local
  /// file's hashed now when neither knows it).
  private func manifest(
    of capture: VaultCapture, remoteFiles: [String: RemoteFile], previous: BackupManifest
  ) throws -> BackupManifest {
    var manifest = BackupManifest()
    for (path, entry) in capture.staged { manifest.entries[path] = entry }
    for (path, entry) in capture.offloaded {
      let size = entry.size >= 0 ? entry.size : remoteFiles[path]?.size ?? 0
      manifest.entries[path] = BackupManifest.Entry(size: size, md5: entry.md5)
    }
    for (path, size) in capture.blobs {
      if let sent = sentHashes[path] {
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

  /// Writes the manifest through `incoming/<run>`, then removes that folder.
  private func writeManifest(_ manifest: BackupManifest, staging: String, run: String) throws {
    let file = staging + "/" + RemoteLocation.manifestFile
    try writeFileAtomically(manifest.encoded(), to: file)
    let incoming = remote.incoming(run)
    try rclone.run("copyto", [], [file, incoming + "/" + RemoteLocation.manifestFile], remote: remote.text)
    try rclone.run(
      "moveto", [], [incoming + "/" + RemoteLocation.manifestFile, remote.manifest], remote: remote.text)
    try rclone.run("purge", [], [incoming], remote: remote.text)
  }

  /// The remote's manifest; nil when it has none.
  func downloadManifest() throws -> BackupManifest? {
    try BackupManifest.download(from: remote, rclone: rclone)
  }
}

extension BackupManifest {
  /// The manifest a remote holds; nil when it has none.
  static func download(from remote: RemoteLocation, rclone: Rclone) throws -> BackupManifest? {
    do {
      let bytes = try rclone.read([], remote.manifest, remote: remote.text, limit: 1 << 30)
      return try BackupManifest(text: bytes, source: remote.manifest)
    } catch RemoteError.notFound {
      return nil
    }
  }
}
