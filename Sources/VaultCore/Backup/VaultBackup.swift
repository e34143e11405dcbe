import Foundation

/// `vault backup REMOTE`: copies the vault's ciphertext (every space; no password) to a
/// remote through rclone, ordered so that the remote's `current/` never lists a photo whose
/// files it lacks, even when killed at any moment (docs/FORMAT.md, "Backups"):
/// 1. capture each space under its shared lock (`VaultCapture`);
/// 2. send the blobs `current/` lacks (by name and size), hashing them as they go; a blob
///    deleted for good meanwhile means the journal changed: capture again (and so when a
///    space's folder is renamed by a password change as it is captured);
/// 3. send the journal and key files that differ into `incoming/`, then move them into
///    `current/`, newest first (a deletion arrives no later than what it deletes);
/// 4. write the manifest, through `incoming/`;
/// 5. move what `current/` has and the vault no longer does aside into `removed/<stamp>`,
///    and purge the folders there whose grace is over.
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
  /// MD5s of the blobs this run sent.
  var sentHashes: [String: String?] = [:]
  /// The manifest of the last complete backup (empty when none is known).
  var previous = BackupManifest()

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
    let tree = try RemoteTree.list(remote, rclone: rclone)
    if tree.current[VaultHeader.fileName] != nil { try requireSameVault() }
    var remoteFiles = tree.current
    for path in cache.filesToResend() { remoteFiles[path] = nil }
    previous =
      try cache.load() ?? (tree.hasManifest ? BackupManifest.download(from: remote, rclone: rclone) : nil)
      ?? BackupManifest()
    // A killed run's files, torn perhaps: never moved in.
    if tree.incomingHasFiles { try rclone.run("purge", [], [remote.incoming], remote: remote.text) }
    var summary = BackupSummary()
    let capture = try sendBlobs(staging: staging, remoteFiles: &remoteFiles, summary: &summary, stage: stage)
    stage(.finishing)
    try sendSmallFiles(
      capture, staging: staging.path + "/capture", remoteFiles: remoteFiles, summary: &summary)
    // The manifest goes first: one written after the moves would, were the run killed
    // between, leave the last one naming files already moved aside. Files of current/ it
    // does not list are moved aside by the next run.
    let manifest = try self.manifest(of: capture, remoteFiles: remoteFiles)
    summary.offloadedElsewhere = capture.offloaded.keys.filter { remoteFiles[$0] == nil }.count
    try write(manifest, staging: staging.path)
    try cache.store(manifest)
    cache.resent()
    let kept = capture.keptPaths()
    try moveAside(remoteFiles.keys.filter { !kept.contains($0) }, summary: &summary)
    summary.foldersPurged = try purgeRemoved(tree.removedFolders + [stamp])
    summary.filesOnRemote = manifest.entries.count
    return summary
  }

  /// Whether the vault's blob at `path` (of `size` bytes) differs in size from the whole
  /// copy the remote holds (`remote`, which the last manifest records as sent): a blob never
  /// changes once named, so the vault's copy is damaged, or was changed (ransomware), and
  /// must not replace the backup's. A remote copy the manifest does not record whole is a
  /// transfer cut short, which the vault's replaces.
  func isAltered(_ path: String, size: Int64, remote: RemoteFile?) -> Bool {
    guard let remote, remote.size != size, let recorded = previous.entries[path] else { return false }
    return recorded.size == remote.size
  }

  /// Refuses a remote whose `current/vault.json` is not this vault's: a backup there
  /// would move the other vault's files aside (and purge them after the grace). The header
  /// is written once, when a vault is made, with a random salt.
  private func requireSameVault() throws {
    let header = VaultHeader.fileName
    let local = try readWholeFile(vault + "/" + header, limit: Self.headerLimit)
    let theirs: [UInt8]
    do {
      theirs = try rclone.read([], remote.current(header), remote: remote.text, limit: Self.headerLimit)
    } catch RemoteError.notFound {
      return
    }
    guard theirs == local else { throw BackupError.anotherVaultsBackup(remote: remote.text) }
  }

  /// Far above a `vault.json`'s size (some 250 bytes).
  static let headerLimit = 64 << 10

  /// This run's stamp: the name of its folder in `removed/`.
  var stamp: String { RemovalStamp(now).name }

  /// Captures the vault and sends the blobs `current/` lacks, again while blobs vanish.
  private func sendBlobs(
    staging: StagingFolder, remoteFiles: inout [String: RemoteFile], summary: inout BackupSummary,
    stage: (TransferStage) -> Void
  ) throws -> VaultCapture {
    for _ in 0..<Self.captureRounds {
      let capture: VaultCapture
      do {
        capture = try VaultCapture.take(of: vault, into: try staging.folder("capture"))
      } catch VaultError.spaceMoved {
        // A password change renamed a space (or a space went) while it was captured.
        continue
      }
      let altered = capture.blobs.filter { isAltered($0.key, size: $0.value, remote: remoteFiles[$0.key]) }
      summary.filesAltered = altered.keys.sorted()
      let missing = capture.blobs.filter { remoteFiles[$0.key]?.size != $0.value && altered[$0.key] == nil }
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
      remoteFiles = try RemoteTree.list(remote, rclone: rclone).current
    }
    throw BackupError.vaultKeptChanging(rounds: Self.captureRounds)
  }
}
