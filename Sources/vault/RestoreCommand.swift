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

      --missing brings back into the vault (--vault, or --to) only what it lacks or has \
      damaged, as 'vault verify' names it: a missing or damaged photo or thumbnail, a \
      missing key, the journal of a space that has none. A journal file that differs from \
      the backup's is never replaced (the vault's own is newer).

      Examples:
        vault restore b2:my-bucket/vault --to ~/restored-vault
        vault restore /mnt/usb/vault --missing
      """)

  @OptionGroup var location: VaultLocation

  @Argument(help: ArgumentHelp("Where the backup is (any path rclone takes).", valueName: "remote"))
  var remote: String

  @Option(help: ArgumentHelp("The folder to restore into.", valueName: "dir"))
  var to: String?

  @Flag(help: "Only what the vault lacks or has damaged (into the vault itself unless --to).")
  var missing = false

  func validate() throws {
    if to == nil && !missing {
      throw ValidationError("say where: --to DIR for a new folder, or --missing to repair this vault.")
    }
  }

  func run() throws {
    let restore = VaultRestore(remote: try RemoteLocation(remote))
    let started = DispatchTime.now()
    let progress: (TransferStage) -> Void = { stage in
      if case .transferring(let progress) = stage { Diagnostics.progress(progress, label: "fetching") }
    }
    let target = to ?? location.resolvedVaultPath
    let summary =
      try missing
      ? restore.restoreMissing(into: target, stage: progress) : restore.restore(to: target, stage: progress)
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
    if !summary.mismatches.isEmpty {
      throw BatchFailure(
        summary: "error: "
          + (summary.mismatches.count == 1 ? "1 file does" : "\(summary.mismatches.count) files do") + " "
          + "not match what the backup sent; run the same command again, or 'vault backup --check --download \(RemoteRedaction.redacted(remote))'"
      )
    }
    if !missing { Diagnostics.hint("'vault verify --vault \(target)' checks every photo with its password") }
  }
}
