import Foundation

extension VaultRestore {
  /// `vault restore REMOTE --missing`: brings back into the vault at `vault` only what it
  /// lacks (what `vault verify` named): a blob, key or header file missing, and the journal
  /// of a space that has none. A file the vault has is never replaced on the manifest's word
  /// alone (whoever holds the remote writes it): a blob whose MD5 differs from the manifest
  /// is replaced only with `authenticate` (the space's key: why a copy of a blob, by path
  /// relative to the vault, does not authenticate; nil when it does), when the vault's copy
  /// fails and the fetched one passes; else it is left and counted. Journal and key files
  /// are never replaced. Files are fetched into a `.tmp-restore-…` folder of the vault,
  /// checked against the manifest, and renamed into place under the space's exclusive lock,
  /// blobs first, journal last; a restored original's `Offloaded/` stub is removed.
  public func restoreMissing(
    into vault: String, authenticate: ((String, String) -> String?)? = nil,
    stage: (TransferStage) -> Void = { _ in }
  ) throws -> RestoreSummary {
    stage(.preparing)
    guard Vault.exists(at: vault) else { throw VaultError.vaultNotFound(path: vault) }
    let manifest = try manifest()
    var summary = RestoreSummary()
    let wanted = try missingFiles(
      of: vault, in: manifest, replacingDamagedBlobs: authenticate != nil, summary: &summary)
    guard !wanted.isEmpty else { return summary }
    let incoming = vault + "/" + TemporaryFile.prefix + "restore-" + hexString(Sodium.randomBytes(8))
    guard mkdir(incoming, 0o700) == 0 else { throw VaultError.posix(incoming) }
    defer { removeTree(incoming) }
    let staging = try StagingFolder(purpose: "restore")
    for (_, paths) in RestoreGroup.split(wanted) {
      let progress = try fetch(paths, into: incoming, staging: staging) { stage(.transferring($0)) }
      summary.filesFetched += progress.transfers
      summary.bytesFetched += progress.bytes
      stage(.finishing)
      try install(
        paths, from: incoming, into: vault, manifest: manifest, authenticate: authenticate, summary: &summary)
    }
    return summary
  }

  /// The files of `manifest` the vault lacks, and the blobs it has that differ from the
  /// manifest when `replacingDamagedBlobs` (else those are counted as kept).
  private func missingFiles(
    of vault: String, in manifest: BackupManifest, replacingDamagedBlobs: Bool, summary: inout RestoreSummary
  ) throws -> [String] {
    var wanted: [String] = []
    for (path, entry) in manifest.entries.sorted(by: { $0.key < $1.key }) {
      let local = vault + "/" + path
      summary.filesChecked += 1
      switch RestoreGroup(path: path) {
      case .blobs:
        guard fileExists(local) else {
          // An offloaded original is where `vault offload` left it, not missing: `vault keep`
          // brings it back.
          let isOffloaded = Self.offloadedStub(of: path, in: vault).map(fileExists) ?? false
          if !isOffloaded { wanted.append(path) }
          continue
        }
        guard try ManifestComparison.local(local, expected: entry) != .matches else { continue }
        if replacingDamagedBlobs {
          wanted.append(path)
        } else {
          summary.differingBlobsKept.append(path)
        }
      case .keys, .header:
        if !fileExists(local) { wanted.append(path) }
      case .journal:
        if !Self.hasJournal(parentFolder(local)) {
          wanted.append(path)
        } else if fileExists(local), try ManifestComparison.local(local, expected: entry) != .matches {
          summary.journalFilesKept += 1
        }
      }
    }
    return wanted
  }

  private static func hasJournal(_ folder: String) -> Bool {
    ((try? listVaultFolder(folder)) ?? []).contains(where: SpaceJournal.isJournalFile)
  }

  /// Moves the fetched `paths` that match the manifest into place, each space's under its
  /// exclusive lock; a key or journal file that has appeared meanwhile is left as it is, and
  /// a blob the vault has is replaced only as `mayReplace` says; a restored original's
  /// `Offloaded/` stub is removed.
  private func install(
    _ paths: [String], from incoming: String, into vault: String, manifest: BackupManifest,
    authenticate: ((String, String) -> String?)?, summary: inout RestoreSummary
  ) throws {
    var bySpace: [String: [String]] = [:]
    for path in paths {
      let fetched = incoming + "/" + path
      guard let expected = manifest.entries[path] else { continue }
      if let reason = try ManifestComparison.local(fetched, expected: expected).reason {
        summary.mismatches.append(RestoreMismatch(path: path, reason: "on the remote: " + reason))
        continue
      }
      let parts = path.split(separator: "/")
      bySpace[parts.count > 1 ? String(parts[0]) : "", default: []].append(path)
    }
    for (tag, files) in bySpace.sorted(by: { $0.key < $1.key }) {
      let lock = tag.isEmpty ? nil : try lockSpace(vault + "/" + tag)
      defer { withExtendedLifetime(lock) {} }
      for path in files {
        let target = vault + "/" + path
        if fileExists(target) {
          guard RestoreGroup(path: path) == .blobs else { continue }
          guard Self.mayReplace(path, in: vault, with: incoming + "/" + path, authenticate: authenticate)
          else {
            summary.differingBlobsKept.append(path)
            continue
          }
        }
        try makeDirectories(parentFolder(target))
        try Self.moveDurably(incoming + "/" + path, to: target)
        try Self.removeOffloadedStub(of: path, in: vault)
      }
    }
  }

  /// Whether the vault's copy of the blob at `path` may give way to `fetched`: only when
  /// the vault's fails authentication and the fetched one passes (a blob of another space,
  /// which the key cannot tell, is never replaced).
  private static func mayReplace(
    _ path: String, in vault: String, with fetched: String, authenticate: ((String, String) -> String?)?
  ) -> Bool {
    guard let authenticate else { return false }
    return authenticate(path, vault + "/" + path) != nil && authenticate(path, fetched) == nil
  }

  /// After an original (`<tag>/Photo/<id>`) came back, its `Offloaded/<id>` stub says
  /// nothing true any more: it goes.
  private static func removeOffloadedStub(of path: String, in vault: String) throws {
    guard let stub = offloadedStub(of: path, in: vault) else { return }
    guard unlink(stub) == 0 else {
      if errno == ENOENT { return }
      throw VaultError.posix(stub)
    }
    try syncDirectory(parentFolder(stub))
  }

  /// The path of the `Offloaded/<id>` stub of the original at `path` (`<tag>/Photo/<id>`);
  /// nil for any other file.
  private static func offloadedStub(of path: String, in vault: String) -> String? {
    let parts = path.split(separator: "/").map(String.init)
    guard parts.count == 3, parts[1] == Space.photoFolder else { return nil }
    return vault + "/" + parts[0] + "/" + Space.offloadedFolder + "/" + parts[2]
  }

  /// The space folder's exclusive lock, the folder made first if it is gone.
  private func lockSpace(_ folder: String) throws -> DirectoryLock {
    try makeDirectories(folder)
    return try DirectoryLock(path: folder, mode: .exclusive)
  }

  /// Syncs `source`, renames it to `target` and syncs `target`'s folder.
  static func moveDurably(_ source: String, to target: String) throws {
    let descriptor = open(source, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw VaultError.posix(source) }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard synced else { throw VaultError.posix(source) }
    chmod(source, 0o600)
    guard rename(source, target) == 0 else { throw VaultError.posix(target) }
    try syncDirectory(parentFolder(target))
  }
}
