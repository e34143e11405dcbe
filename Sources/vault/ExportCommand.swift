import ArgumentParser
import Foundation
import VaultCore

struct ExportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Decrypt photos into a folder, byte for byte, under their original names.",
    discussion: """
      Existing files are never overwritten: a taken name gets " (1)", " (2)"… Each file \
      appears only once complete and verified, with its original modification time. \
      Folders export makes are private to you (mode 0700).
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoiceOptions

  @Option(
    help: ArgumentHelp(
      "The folder to write into (default: a new vault-export-<date> folder here).", valueName: "dir"))
  var to: String?

  @Flag(help: "Export the thumbnails (JPEG) instead of the originals.")
  var thumbs = false

  @Flag(name: .shortAndLong, help: "Print only the summary and errors.")
  var quiet = false

  func run() throws {
    // Checked before the password is asked for.
    try ExportTarget.check(to ?? ".")
    let space = try options.unlock(.read)
    SignalHandling.install()
    let photos = try space.makeBrowser().photos(chosenBy: try choice.choice, action: "exporting").map(\.photo)

    let directory: String
    if let to {
      try ExportTarget.make(to)
      directory = to
    } else {
      directory = try ExportTarget.makeDated()
    }
    var failed = 0
    let (exported, interrupted) = PhotoExporter(space: space).export(
      photos, to: directory, thumbnails: thumbs, interruption: SignalHandling.interruption
    ) { event in
      switch event {
      case .exported(_, let path): if !quiet { printLine("exported \(path)") }
      case .failed(let name, let error):
        failed += 1
        Diagnostics.error("'\(name)' not exported: \(error.description)")
      }
    }
    if interrupted {
      // Unlike add, export does not skip what is already there: running it again would
      // write the photos already exported a second time, as "name (1)".
      throw CommandInterrupted(
        summary:
          "interrupted: \(exported) of \(photos.count) exported to \(directory); to finish, export only the other \(photos.count - exported) (the same command again would export the \(exported) a second time)"
      )
    }
    printLine(
      "exported \(exported) \(thumbs ? "thumbnail" : "photo")\(exported == 1 ? "" : "s") to \(directory)")
    if failed > 0 {
      throw BatchFailure(
        summary:
          "error: \(failed) \(thumbs ? "thumbnail" : "photo")\(failed == 1 ? "" : "s") could not be exported")
    }
  }
}
