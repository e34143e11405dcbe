import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct OffloadCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "offload",
    abstract: "Move photos' originals to a remote, keeping them one keystroke away.",
    discussion: """
      REMOTE is any path rclone takes (b2:bucket/vault, sftp-box:/backups/vault, \
      /mnt/usb/vault, a connection string). Each chosen original that the remote lacks is \
      sent there, laid out as 'vault backup' lays the vault out (REMOTE/current/…); once \
      the remote's copy is checked whole (its MD5, or a download where the backend keeps \
      none), the original leaves this disk. Records, thumbnails, albums and the journal \
      stay: 'vault list' shows the photo as remote, and view, export and mount read it \
      from the remote by range as they need it. 'vault keep' brings originals back. A \
      space offloads to one remote at a time. Nothing is lost, so nothing is asked.

      Examples:
        vault offload --videos --to b2:my-bucket/vault
        vault offload --older-than 2024-01-01 --to sftp-box:/backups/vault
        vault offload 12 14-16 --to /mnt/usb/vault
      """)

  @OptionGroup var options: VaultOptions

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      "Photos by number, range or id, as `vault list` numbers them with the same --album, --since, --until and --sort.",
      valueName: "photos"))
  var photos: [String] = []

  @Flag(help: "Offload every photo (of the album, or between the dates, given).")
  var all = false

  @Option(help: ArgumentHelp("Offload the photos taken (else imported) before DATE.", valueName: "date"))
  var olderThan: String?

  @Flag(help: "Offload the videos.")
  var videos = false

  @Option(help: ArgumentHelp("The remote to offload to (an rclone path).", valueName: "remote"))
  var to: String

  @OptionGroup var scope: ScopeOptions

  func validate() throws {
    let filters = olderThan != nil || videos
    let ways = [!photos.isEmpty, all, filters].filter { $0 }.count
    if ways == 0 {
      throw ValidationError("Name photos by number or id, or pass --all, --older-than or --videos.")
    }
    if ways > 1 {
      throw ValidationError("Use only one of: photo numbers or ids, --all, --older-than/--videos.")
    }
    try validatePhotoTerms(photos)
    if let olderThan {
      do { _ = try DatePeriod(parsing: olderThan) } catch let error as VaultError {
        throw ValidationError(error.description)
      }
    }
    do { _ = try RemoteLocation(to) } catch let error as VaultError {
      throw ValidationError(error.description)
    }
  }

  func run() throws {
    let remote = try RemoteLocation(to)
    // Opened to read: the space lets its lock go while the copies are sent (see `offload`).
    let space = try options.unlock(.read)
    let browser = space.makeBrowser(scope: try chosenScope())
    browser.scopeDescription = scope.described
    let chosen = try browser.photos(
      chosenBy: photos.isEmpty ? .all : .photos(try PhotoSelector.parse(photos)), action: "offloading"
    ).map(\.photo).filter { !videos || $0.kind == .video }
    SignalHandling.install()
    let outcome = try space.offload(chosen.flatMap(\.records), to: remote) {
      Diagnostics.progress($0, label: "sending")
    }
    Diagnostics.clearProgress()
    report(outcome, names: browser.shownNames)
    if !outcome.failed.isEmpty {
      throw BatchFailure(summary: "error: \(KeepCommand.files(outcome.failed.count)) could not be offloaded")
    }
  }

  /// The scope of the options, with --older-than's bound: photos before its start.
  private func chosenScope() throws -> PhotoScope {
    var chosen = try scope.scope
    if let olderThan {
      let start = try DatePeriod(parsing: olderThan).start
      chosen.until = DatePeriod(start: start, end: min(chosen.until?.end ?? .max, start))
    }
    return chosen
  }

  /// Names each file as 'vault list' shows it (`names`).
  private func report(_ outcome: OffloadOutcome, names: ShownFileNames) {
    for record in outcome.offloaded { printLine("offloaded '\(names.of(record))'") }
    for (record, error) in outcome.failed {
      Diagnostics.error("'\(names.of(record))' not offloaded: \(error)")
    }
    let already = outcome.alreadyRemote.count
    printLine(
      "offloaded \(KeepCommand.files(outcome.offloaded.count)) to '\(RemoteRedaction.redacted(to))'"
        + " (\(outcome.sent) sent)" + (already > 0 ? "; \(KeepCommand.files(already)) there already" : ""))
  }
}
