import ArgumentParser
import VaultCore
import VaultTerminal

struct AddCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Import photos (files or folders, recursively) into the space.",
    discussion: """
      JPEG, PNG, HEIC, GIF, WebP and AVIF photos and MP4 and MOV videos are recognised by their content and \
      get a thumbnail; \
      photos already in the space are skipped. Files in folders that are not photos are \
      skipped and counted, except those named as photos (.jpg, .png, .heic...): they fail. Each imported file is printed as it is stored; a summary ends the \
      run, and the exit status is 1 if any file failed. With --album, the photos imported \
      and those already in the space are put in that album (made if there is none), once \
      the import is over (an interrupted one too). \
      With --move (to empty a camera card), \
      each file is removed once the space holds it: after its batch is on disk, the copy in \
      the space is read back, authenticated and compared with the file, which is read again; \
      photos already in the space are checked the same way and removed too. Files that fail, \
      that are not photos, or that cannot be removed (a read-only card) stay where they are.
      """)

  @OptionGroup var options: VaultOptions

  @Flag(
    name: .shortAndLong,
    help: "Print only the summary, errors, and Live Photos made with a half already in the space.")
  var quiet = false

  @Flag(name: .shortAndLong, help: "Also name each file skipped because it is not a photo.")
  var verbose = false

  @Option(help: ArgumentHelp("Put the photos in this album (made if there is none).", valueName: "name"))
  var album: String?

  @Flag(help: "Remove each file once the space holds it, read back and checked (files that fail stay).")
  var move = false

  @Option(help: "Refuse photos of more megapixels than this, before decoding them.")
  var maxMegapixels = Thumbnailer().pixelLimit / 1_000_000

  @OptionGroup var decoder: DecoderOptions

  @Argument(help: "Files and folders to import.", completion: .file())
  var paths: [String]

  func validate() throws {
    if paths.isEmpty { throw ValidationError("Name at least one file or folder to import.") }
    if maxMegapixels < 1 || maxMegapixels > 10_000 {
      throw ValidationError("--max-megapixels must be from 1 to 10000.")
    }
    if quiet && verbose { throw ValidationError("Use only one of --quiet and --verbose.") }
    if let album { _ = try validateAlbumName(album) }
  }

  func run() throws {
    let vault = try options.openVault()
    // The paths are checked before the password is asked for: a typo costs nothing.
    let collected = PhotoImporter.collectFiles(paths)
    for case .failed(_, let error) in collected.failures { Diagnostics.error(error.description) }
    if !collected.failures.isEmpty {
      throw BatchFailure(summary: "error: nothing was imported; check the paths named above")
    }
    for case .failed(_, let error) in collected.undecodableNames { Diagnostics.error(error.description) }
    var credential = try options.credential(for: vault)
    SignalHandling.install()
    var thumbnailer = Thumbnailer()
    thumbnailer.pixelLimit = maxMegapixels * 1_000_000
    let importer = PhotoImporter(thumbnailer: thumbnailer, decoderLimits: decoder.limits)
    let files = collected.files
    let albumName = try album.map(AlbumName.normalized)
    var opened: Space?
    var forAlbum = ImportedPhotos()
    var keptNamed = 0
    var imported: [PhotoRecord] = []
    var listing: PhotoBrowser?
    // The files are opened and recognised while the password's key is derived; nothing is
    // decoded before (docs/PERFORMANCE.md, memory of add).
    var summary = try importer.importFiles(
      files, skippingNonPhotos: collected.foundInFolders, movingSources: move,
      interruption: SignalHandling.interruption
    ) {
      let space = try options.unlock(vault, with: &credential, access: .write)
      try space.requireIndex()
      opened = space
      return space
    } report: { event, done in
      if case .added(_, let record) = event { imported.append(record) }
      report(event, forAlbum: &forAlbum, keptNamed: &keptNamed) { contentHash in
        guard let space = opened else { return nil }
        // One browser for the import: it reloads the catalog only when the list changed.
        let browser = listing ?? space.makeBrowser()
        listing = browser
        return DuplicatedItem(contentHash: contentHash, in: space, browser: browser)
      }
      Diagnostics.progress(done: done, total: files.count, label: event.path)
    }
    Diagnostics.clearProgress()
    summary.failed += collected.undecodableNames.count
    // Also after an interruption: the photos imported so far go in the album.
    var albumLine: String?
    if let albumName, let space = opened { albumLine = try putInAlbum(albumName, forAlbum, space: space) }
    if summary.interrupted {
      if let albumLine { printLine(albumLine) }
      throw CommandInterrupted(done: summary.added, of: files.count, "added")
    }
    let items = opened?.catalog.newItems(madeOf: imported) ?? ItemCount()
    try printSummary(summary, items: items, albumLine: albumLine, keptNamed: keptNamed)
  }

  /// "skipped 'b.jpg': already in the space as 12 'jolla.jpg' (id 0123abcd)": the item the
  /// file duplicates, numbered as `list` numbers it; one in Recently Deleted as `vault trash`
  /// numbers it, with how to bring it back (it is not in `list`).
  static func duplicateLine(_ path: String, _ item: DuplicatedItem?) -> String {
    guard let item else { return "skipped '\(path)': already in the space" }
    guard item.isInTrash else { return "skipped '\(path)': already in the space as \(item)" }
    return
      "skipped '\(path)': already in the space as \(item); 'vault trash restore \(item.number)' brings it back"
  }

  /// Says what happened to one file (a duplicate with the item `duplicated` finds for its
  /// content), and keeps what the album needs.
  private func report(
    _ event: ImportEvent, forAlbum: inout ImportedPhotos, keptNamed: inout Int,
    duplicated: (_ contentHash: String) -> DuplicatedItem?
  ) {
    forAlbum.note(event)
    switch event {
    case .added(let path, _):
      if !quiet { printLine("added \(path)") }
    case .duplicate(let path, let contentHash):
      if !quiet { printLine(Self.duplicateLine(path, duplicated(contentHash))) }
    case .skipped(_, let reason):
      if verbose { printLine("skipped \(reason.description)") }
    case .failed(_, let error):
      Diagnostics.error(error.description)
    case .warning(let path, let message):
      Diagnostics.warning(
        "'\(path)': \(message); kept whole, its thumbnail made from what decodes")
    case .paired(let path, _, let mate, let displaced):
      // Said even with --quiet: it changes an item that was there before.
      let kind = mate.kind == .video ? "video" : "photo"
      let instead = displaced.map {
        ", instead of the photo '\($0.name)' (\($0.id.hex.prefix(8))), whose name does not match it and which "
          + "stays a photo of its own"
      }
      printLine(
        "paired \(path) with the \(kind) '\(mate.name)' (\(mate.id.hex.prefix(8))) already in the space, as a Live Photo"
          + (instead ?? ""))
    case .livePairKept(let path, _, let motion, let still):
      let stillID = still.id.hex.prefix(8)
      Diagnostics.warning(
        "'\(path)' carries the Live Photo identifier of the video '\(motion.name)' (\(motion.id.hex.prefix(8))), "
          + "which stays paired with the photo '\(still.name)' (\(stillID)) already in the space; this one is a "
          + "photo of its own (if that still is the wrong one, 'vault delete --only still \(stillID)' frees the "
          + "video for another still of its identifier, one named as the video first)")
    case .sourceRemoved(let path):
      if !quiet { printLine("removed \(path)") }
    case .sourceKept(_, let reason):
      // A read-only card keeps every file for the same reason: a few lines say it.
      if verbose || keptNamed < Self.keptNamedAtMost {
        keptNamed += 1
        Diagnostics.error("\(reason.description) (it is in the space, but the file was not removed)")
      }
    }
  }

  /// The summary lines after an import that ran to its end; throws when files failed or
  /// sources were kept.
  private func printSummary(_ summary: ImportSummary, items: ItemCount, albumLine: String?, keptNamed: Int)
    throws
  {
    var line =
      "added \(items.described(files: summary.added, "from")), skipped \(summary.duplicates) duplicate\(summary.duplicates == 1 ? "" : "s"), failed \(summary.failed)"
    if summary.warnings > 0 { line += ", \(summary.warnings) with warnings" }
    if move {
      line += "; removed \(summary.sourcesRemoved) source file\(summary.sourcesRemoved == 1 ? "" : "s")"
    }
    printLine(line)
    if let albumLine { printLine(albumLine) }
    if summary.skipped > 0 {
      printLine(
        "skipped \(summary.skipped) file\(summary.skipped == 1 ? "" : "s") that \(summary.skipped == 1 ? "is" : "are") not \(ImageFormat.displayNames(joinedBy: "or"))"
          + (move ? (summary.skipped == 1 ? "; it stays where it is" : "; they stay where they are") : "")
          + (verbose ? "" : " (--verbose names \(summary.skipped == 1 ? "it" : "them"))"))
    }
    var problems: [String] = []
    if summary.failed > 0 {
      problems.append("error: \(summary.failed) file\(summary.failed == 1 ? "" : "s") could not be imported")
    }
    if summary.sourcesKept > 0 {
      problems.append(
        "error: \(summary.sourcesKept) source file\(summary.sourcesKept == 1 ? " was" : "s were") kept (in the space, but not removed; "
          + (keptNamed < summary.sourcesKept
            ? "the first \(keptNamed) are named above, --verbose names all)" : "see above)")
      )
    }
    if !problems.isEmpty { throw BatchFailure(summary: problems.joined(separator: "\n")) }
  }

  /// How many kept sources `add --move` names, unless --verbose.
  static let keptNamedAtMost = 5

  /// The line that says which photos went in the album (nil if none did).
  private func putInAlbum(_ name: String, _ photos: ImportedPhotos, space: Space) throws -> String? {
    guard let (addition, already) = try photos.putInAlbum(name, through: space.makeBrowser()) else {
      return nil
    }
    return (addition.created ? "made album '\(addition.name)'; " : "")
      + "put \(VaultTerminal.photos(addition.added)) in album '\(addition.name)'"
      + (already > 0 ? " (\(already) \(already == 1 ? "was" : "were") in it already)" : "")
  }
}
