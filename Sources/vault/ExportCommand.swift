import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct ExportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Decrypt photos into a folder, byte for byte, under their original names.",
    discussion: """
      Existing files are never overwritten: a taken name gets " (1)", " (2)"… Each file \
      appears only once complete and verified, with its original modification time. \
      Folders export makes are private to you (mode 0700). With --by-album, each album \
      gets a folder of its name inside the target (a photo in several albums is written \
      into each), and photos in no album go into '\(AlbumFolders.noAlbumFolder)'.
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoiceOptions
  @OptionGroup var scope: ScopeOptions

  @Option(
    help: ArgumentHelp(
      "The folder to write into (default: a new vault-export-<date> folder here).", valueName: "dir"),
    completion: .directory)
  var to: String?

  @Flag(help: "Export the thumbnails (JPEG) instead of the originals.")
  var thumbs = false

  @Flag(help: "Write one folder per album, and one for the photos in no album.")
  var byAlbum = false

  @Flag(name: .shortAndLong, help: "Print only the summary and errors.")
  var quiet = false

  func run() throws {
    // Checked before the password is asked for.
    try ExportTarget.check(to ?? ".")
    let space = try options.unlock(.read)
    SignalHandling.install()
    let browser = try scope.browser(for: space)
    let photos = try browser.photos(chosenBy: try choice.choice, action: "exporting").map(\.photo)
    // Without --by-album, one group: the target folder itself.
    let groups = byAlbum ? AlbumFolders.groups(photos, only: try scope.scope.album) : [("", photos)]
    // A Live Photo is two files (its still and its MOV), a thumbnail one.
    let withMotion = thumbs ? 0 : groups.reduce(0) { $0 + $1.photos.filter { $0.motion != nil }.count }
    let files = groups.reduce(0) { $0 + $1.photos.count } + withMotion
    let directory =
      try to.map {
        try ExportTarget.make($0)
        return $0
      } ?? ExportTarget.makeDated()
    let exporter = PhotoExporter(browser: browser)
    var failed = 0
    var exported = 0
    var items = ItemCount()
    for (folder, group) in groups {
      guard let target = try albumFolder(folder, in: directory, photos: group.count) else {
        failed += group.count
        continue
      }
      var tally = ExportTally(group, thumbnails: thumbs)
      let (done, interrupted) = exporter.export(
        group, to: target, thumbnails: thumbs, interruption: SignalHandling.interruption
      ) { event in
        tally.note(event)
        switch event {
        case .exported(_, let path): if !quiet { printLine("exported \(path)") }
        case .failed(let name, let error):
          failed += 1
          Diagnostics.error("'\(name)' not exported: \(error.description)")
        }
      }
      exported += done
      items = items + tally.exported
      if interrupted {
        // Unlike add, export does not skip what is already there: running it again would
        // write the photos already exported a second time, as "name (1)".
        throw CommandInterrupted(
          summary:
            "interrupted: \(exported) of \(files) exported to \(directory); to finish, export only the other \(files - exported) (the same command again would export the \(exported) a second time)"
        )
      }
    }
    let folders = byAlbum ? " in \(groups.count) folder\(groups.count == 1 ? "" : "s")" : ""
    // Items as `list` counts them, and the files they took when that is another number.
    let written =
      thumbs ? "\(exported) thumbnail\(exported == 1 ? "" : "s")" : items.described(files: exported, "as")
    printLine("exported \(written) to \(directory)\(folders)")
    let what = thumbs ? "thumbnail" : "file"
    if failed > 0 {
      throw BatchFailure(summary: "error: \(failed) \(what)\(failed == 1 ? "" : "s") could not be exported")
    }
  }

  /// The folder a group of `photos` photos goes into: `directory` itself for the group
  /// without a folder, else its album folder inside, made here. A folder that cannot be
  /// made fails its photos, not the albums after it: said, and nil.
  private func albumFolder(_ folder: String, in directory: String, photos: Int) throws -> String? {
    if folder.isEmpty { return directory }
    let target = directory + "/" + folder
    do {
      try ExportTarget.make(target)
      return target
    } catch let error as VaultError {
      Diagnostics.error(
        "album folder '\(TerminalSafeText.escaped(folder))': \(error.description); its \(photos) photo\(photos == 1 ? "" : "s") not exported"
      )
      return nil
    }
  }
}
