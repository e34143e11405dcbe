import Foundation

/// `vault backup --check REMOTE`: is every file the last complete backup sent still on the
/// remote, whole? Compared with the manifest by the backend's own MD5 where it gives one
/// (no download), else by size; with `download`, every file is fetched (in batches into a
/// private folder, removed as it goes) and hashed, and the blobs of an opened space are
/// authenticated too. What it finds is sent again by the vault's next backup.
public final class BackupCheck {
  let remote: RemoteLocation
  let rclone: Rclone
  /// The most bytes of one batch fetched with `download`.
  static let batchBytes: Int64 = 256 << 20

  /// The vault whose next backup to this remote sends again what the check finds missing
  /// or damaged (nil: none).
  let vault: String?
  let environment: [String: String]

  public init(
    remote: RemoteLocation, vault: String? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.remote = remote
    self.vault = vault
    self.environment = environment
    self.rclone = Rclone(environment: environment)
  }

  /// One file that is not as the backup sent it.
  public struct Finding: Equatable, Sendable {
    /// Relative to the vault folder: `<tag>/Photo/<id>`.
    public let path: String
    public let isMissing: Bool
    /// Why it is damaged (nil when missing).
    public let reason: String?
  }

  public struct Report: Sendable {
    public var findings: [Finding] = []
    /// Files of the manifest checked, by MD5 and by size only.
    public var files = 0
    public var bySizeOnly = 0
    /// Blobs authenticated (with `download` and an opened space).
    public var authenticated = 0
  }

  /// Checks the remote. `authenticate` (with `download`) is given a blob's path relative to
  /// the vault folder and its downloaded copy, and says why it does not authenticate (nil
  /// when it does, or is not a blob it can open).
  public func run(
    download: Bool, authenticate: ((String, String) -> String?)? = nil,
    stage: (TransferStage) -> Void = { _ in }
  ) throws -> Report {
    stage(.preparing)
    guard let manifest = try BackupManifest.download(from: remote, rclone: rclone) else {
      throw BackupError.noBackup(remote: remote.text)
    }
    // A backup always holds vault.json: a manifest listing nothing is never a whole backup.
    guard !manifest.entries.isEmpty else { throw BackupError.emptyManifest(remote: remote.text) }
    let report =
      try download
      ? checkDownloading(manifest, authenticate: authenticate, stage: stage) : checkListing(manifest)
    if let vault, Vault.exists(at: vault), !report.findings.isEmpty {
      let cache = ManifestCache(vault: vault, remote: remote, environment: environment)
      try cache.resend(report.findings.map(\.path))
    }
    return report
  }

  private func checkListing(_ manifest: BackupManifest) throws -> Report {
    let listed = try rclone.listFiles(in: remote.current, remote: remote, hashes: true) ?? [:]
    var report = Report()
    for (path, expected) in manifest.entries.sorted(by: { $0.key < $1.key }) {
      let file = listed[path]
      if file != nil && (file?.md5 == nil || expected.md5 == nil) { report.bySizeOnly += 1 }
      report.note(path, ManifestComparison(size: file?.size, md5: file?.md5, expected: expected))
    }
    return report
  }

  private func checkDownloading(
    _ manifest: BackupManifest, authenticate: ((String, String) -> String?)?, stage: (TransferStage) -> Void
  ) throws -> Report {
    var report = Report()
    let staging = try StagingFolder(purpose: "check")
    let restore = VaultRestore(remote: remote, rclone: rclone)
    for batch in Self.batches(of: manifest) {
      let folder = try staging.folder("batch")
      _ = try restore.fetch(batch, into: folder, staging: staging) { stage(.transferring($0)) }
      for path in batch {
        let copy = folder + "/" + path
        let comparison = try ManifestComparison.local(copy, expected: manifest.entries[path]!)
        if comparison == .matches, let authenticate, RestoreGroup(path: path) == .blobs {
          if let reason = authenticate(path, copy) {
            report.findings.append(Finding(path: path, isMissing: false, reason: reason))
            report.files += 1
            continue
          }
          report.authenticated += 1
        }
        report.note(path, comparison)
      }
    }
    return report
  }

  /// The manifest's paths in batches of at most `batchBytes` (or one file).
  static func batches(of manifest: BackupManifest) -> [[String]] {
    var batches: [[String]] = []
    var current: [String] = []
    var bytes: Int64 = 0
    for (path, entry) in manifest.entries.sorted(by: { $0.key < $1.key }) {
      if !current.isEmpty && bytes + entry.size > batchBytes {
        batches.append(current)
        current = []
        bytes = 0
      }
      current.append(path)
      bytes += entry.size
    }
    if !current.isEmpty { batches.append(current) }
    return batches
  }
}

extension BackupCheck.Report {
  fileprivate mutating func note(_ path: String, _ comparison: ManifestComparison) {
    files += 1
    guard let reason = comparison.reason else { return }
    findings.append(
      BackupCheck.Finding(
        path: path, isMissing: comparison == .missing, reason: comparison == .missing ? nil : reason))
  }
}
