import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct RestoreCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "restore",
    abstract: "Bring a vault back from a backup 'vault backup' made, checked against what it sent.",
    discussion: """
      Restores exactly the files the remote's last complete backup lists, through rclone: \
      the photos' files first, then the journal and keys, vault.json last (a restore cut \
      short is no vault at all, never one that lists photos it lacks), then checks every \
      file's MD5 against what the backup sent. Run it \
      again to go on after an interruption: what is already whole is not fetched again. \
      --to takes a folder that is absent, empty, or an earlier restore's of the same backup. \
      Needs no password.

      --missing brings back into the vault (--vault, or --to) only what it lacks, as \
      'vault verify' names it: a missing photo or thumbnail, a missing key, the journal of \
      a space that has none. A file the vault has is never replaced on the backup's word \
      alone: a damaged photo or thumbnail is replaced only with the space's password (or \
      session key), when the vault's copy fails authentication and the backup's passes. \
      Journal and key files are never replaced (the vault's own are newer).

      Examples:
        vault restore b2:my-bucket/vault --to ~/restored-vault
        vault restore /mnt/usb/vault --missing
      """)

  @OptionGroup var options: VaultOptions

  @Argument(help: ArgumentHelp("Where the backup is (any path rclone takes).", valueName: "remote"))
  var remote: String

  @Option(help: ArgumentHelp("The folder to restore into.", valueName: "dir"), completion: .directory)
  var to: String?

  @Flag(help: "Only what the vault lacks or has damaged (into the vault itself unless --to).")
  var missing = false

  func validate() throws {
    if to == nil && !missing {
      throw ValidationError("say where: --to DIR for a new folder, or --missing to repair this vault.")
    }
    if !missing && options.passwordFile != nil {
      throw ValidationError("a restore needs no password; --password-file goes with --missing.")
    }
  }

  func run() throws {
    let restore = VaultRestore(remote: try RemoteLocation(remote))
    let started = DispatchTime.now()
    let progress: (TransferStage) -> Void = { stage in
      if case .transferring(let progress) = stage { Diagnostics.progress(progress, label: "fetching") }
    }
    let target = to ?? options.resolvedVaultPath
    let summary =
      try missing
      ? restoreMissing(restore, into: target, stage: progress) : restore.restore(to: target, stage: progress)
    Diagnostics.clearProgress()
    for mismatch in summary.mismatches { printLine("does not match the backup: \(mismatch)") }
    let files = summary.filesFetched == 1 ? "1 file" : "\(summary.filesFetched) files"
    var line =
      "restored \(files) (\(PhotoListing.byteCount(summary.bytesFetched))) from '\(RemoteRedaction.redacted(remote))' to '\(target)' "
      + "in \(BackupCommand.seconds(since: started)) s"
    if missing && summary.filesFetched == 0 && summary.mismatches.isEmpty { line += ": nothing was missing" }
    if summary.journalFilesKept > 0 {
      line +=
        "; kept \(summary.journalFilesKept) journal file\(summary.journalFilesKept == 1 ? "" : "s") that differ from the backup's"
    }
    printLine(line)
    try reportKept(summary.differingBlobsKept)
    if !summary.mismatches.isEmpty {
      throw BatchFailure(
        summary: "error: "
          + (summary.mismatches.count == 1 ? "1 file does" : "\(summary.mismatches.count) files do") + " "
          + "not match what the backup sent; run the same command again, or 'vault backup --check --download \(RemoteRedaction.redacted(remote))'"
      )
    }
    if !missing { Diagnostics.hint("'vault verify --vault \(target)' checks every photo with its password") }
  }

  /// --missing, with the key of the space a password (or session key) opens when one is
  /// given: it tells a damaged copy from a whole one. The space's own lock is let go: the
  /// restore takes each space's exclusive lock to move files in.
  private func restoreMissing(
    _ restore: VaultRestore, into target: String, stage: (TransferStage) -> Void
  ) throws -> RestoreSummary {
    var located = options
    located.location.vaultPath = target
    let space = try located.spaceIfCredentialGiven()
    space?.releaseLock()
    return try restore.restoreMissing(
      into: target, authenticate: space.map { space in { space.authenticateCopy(of: $0, at: $1) } },
      stage: stage)
  }

  /// Names each blob the vault has that differs from the backup's and was left, and fails.
  private func reportKept(_ kept: [String]) throws {
    guard !kept.isEmpty else { return }
    for path in kept { printLine("kept: \(path) differs from the backup's copy") }
    Diagnostics.hint(
      "with the space's password (--password-file, $VAULT_PASSWORD or 'vault unlock'), a copy that fails "
        + "authentication is replaced by the backup's when that one passes")
    throw BatchFailure(
      summary: "error: " + (kept.count == 1 ? "1 file differs" : "\(kept.count) files differ")
        + " from the backup's and was left as it is")
  }
}
