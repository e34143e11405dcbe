import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct BackupCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "backup",
    abstract: "Copy the vault's encrypted files to a remote through rclone; with --check, check that copy.",
    discussion: """
      REMOTE is anything rclone takes: a remote of your rclone config with a path \
      (b2:bucket/vault, sftp-box:/backups/vault), a folder (/mnt/usb/vault), or a \
      connection string (:sftp,host=example.org,user=me:vault). vault runs /usr/bin/rclone \
      and never hands it a password. The backup needs no password (cron can run it): it \
      copies every space's encrypted files, new blobs first, then the journal, then \
      removals, so that the remote never lists a photo whose files it lacks, even when the \
      backup is cut short. Only what changed is sent. Files the vault no longer has are \
      moved aside into REMOTE/removed/<date> and deleted after --keep-removed days, so that \
      a wiped or encrypted laptop cannot take the backup with it. REMOTE/current alone is a \
      vault: 'rclone copy REMOTE/current DIR' gives it back ('vault restore' checks it too).

      --check compares every file the last backup sent with the remote's own hashes (MD5, \
      where the backend gives one; by size where it does not), without a download; \
      --download reads everything back and hashes it. With a password (or a session key), \
      the files of that space are named by photo; without, by path. Exit status 1 when \
      anything is missing or damaged.

      Examples:
        vault backup b2:my-bucket/vault
        vault backup /mnt/usb/vault --keep-removed 90
        vault backup --check sftp-box:/backups/vault
        vault backup --check --download --password-file pw.txt b2:my-bucket/vault
      """)

  @OptionGroup var options: VaultOptions

  @Argument(help: ArgumentHelp("Where the backup goes (any path rclone takes).", valueName: "remote"))
  var remote: String

  @Option(
    help: ArgumentHelp(
      "Days files taken out of the backup are kept aside before they are deleted (default: 30).",
      valueName: "days"))
  var keepRemoved: Int?

  @Flag(help: "Check the backup instead: every file there, whole (by the remote's hashes).")
  var check = false

  @Flag(help: "With --check: read every file back and hash it (and authenticate the space's photos).")
  var download = false

  func validate() throws {
    if download && !check { throw ValidationError("--download goes with --check.") }
    if let keepRemoved, keepRemoved < 0 || keepRemoved > 36_500 {
      throw ValidationError("--keep-removed takes days from 0 to 36500.")
    }
    if check && keepRemoved != nil {
      throw ValidationError("--keep-removed goes with a backup, not --check.")
    }
    if !check && options.passwordFile != nil {
      throw ValidationError("a backup needs no password; --password-file goes with --check.")
    }
  }

  func run() throws {
    let location = try RemoteLocation(remote)
    if check { return try BackupCheckReport(location: location, options: options, download: download).run() }
    let vault = try options.openVault()
    let started = DispatchTime.now()
    let backup = VaultBackup(
      vault: vault.path, remote: location, graceDays: keepRemoved ?? VaultBackup.defaultGraceDays)
    let summary = try backup.run { stage in
      if case .transferring(let progress) = stage { Diagnostics.progress(progress, label: "sending") }
    }
    Diagnostics.clearProgress()
    printLine(Self.describe(summary, remote: remote, seconds: Self.seconds(since: started)))
    Self.reportOffloadedElsewhere(summary.offloadedElsewhere)
    try Self.reportAltered(summary.filesAltered)
  }

  /// Says that originals offloaded to another remote are not in this backup (a cron job's
  /// log should not read as if the backup held every photo).
  static func reportOffloadedElsewhere(_ count: Int) {
    guard count > 0 else { return }
    let originals = count == 1 ? "1 offloaded original is" : "\(count) offloaded originals are"
    Diagnostics.warning(
      "\(originals) not in this backup: they are on the remote they were offloaded to, not on this one")
    Diagnostics.hint("'vault keep --all' brings them back to the vault, and the next backup sends them")
  }

  /// Names the vault's files that differ from the backup's whole copies (which were kept),
  /// and fails the command so that a cron job's owner hears of it.
  static func reportAltered(_ paths: [String]) throws {
    guard !paths.isEmpty else { return }
    for path in paths {
      Diagnostics.warning(
        "'\(path)' differs in size from the copy the backup holds, which was kept: the vault's copy is damaged "
          + "or was changed")
    }
    Diagnostics.hint(
      "'vault verify' checks the vault; 'vault restore REMOTE --missing' brings the backup's copies back")
    throw BatchFailure(
      summary: "error: "
        + (paths.count == 1
          ? "1 file of the vault differs from the backup's and was not sent"
          : "\(paths.count) files of the vault differ from the backup's and were not sent"))
  }

  static func describe(_ summary: BackupSummary, remote: String, seconds: Int) -> String {
    let files = summary.filesSent == 1 ? "1 file" : "\(summary.filesSent) files"
    var line =
      "backed up \(files) (\(PhotoListing.byteCount(summary.bytesSent))) to '\(RemoteRedaction.redacted(remote))' in \(seconds) s"
    if summary.filesSent == 0 && summary.filesRemoved == 0 { line += ": it was up to date" }
    if summary.filesRemoved > 0, let until = summary.keptUntil {
      let removed = summary.filesRemoved == 1 ? "1 removed file" : "\(summary.filesRemoved) removed files"
      line += "; \(removed) kept aside until \(day(until))"
    }
    if summary.foldersPurged > 0 {
      line +=
        "; deleted \(summary.foldersPurged) folder\(summary.foldersPurged == 1 ? "" : "s") of removed files past their grace"
    }
    return line
  }

  /// A date as `2026-12-29` (local time).
  static func day(_ date: Date) -> String {
    var time = tm()
    var seconds = time_t(date.timeIntervalSince1970)
    localtime_r(&seconds, &time)
    return String(format: "%04d-%02d-%02d", Int(time.tm_year) + 1900, Int(time.tm_mon) + 1, Int(time.tm_mday))
  }

  static func seconds(since start: DispatchTime) -> Int {
    Int(((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000 + 500) / 1000)
  }
}
