import ArgumentParser
import VaultCore

struct AddCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Import photos (files or folders, recursively) into the space.",
    discussion: """
      JPEG, PNG and HEIC files are recognised by their content and get a thumbnail; \
      photos already in the space are skipped. Files in folders that are not photos are \
      skipped and counted. Each imported file is printed as it is stored; a summary ends the \
      run, and the exit status is 1 if any file failed.
      """)

  @OptionGroup var options: VaultOptions

  @Flag(name: .shortAndLong, help: "Print only the summary and errors.")
  var quiet = false

  @Flag(name: .shortAndLong, help: "Also name each file skipped because it is not a photo.")
  var verbose = false

  @Option(help: "Refuse photos of more megapixels than this, before decoding them.")
  var maxMegapixels = Thumbnailer().pixelLimit / 1_000_000

  @Argument(help: "Files and folders to import.", completion: .file())
  var paths: [String]

  func validate() throws {
    if paths.isEmpty { throw ValidationError("Name at least one file or folder to import.") }
    if maxMegapixels < 1 || maxMegapixels > 10_000 {
      throw ValidationError("--max-megapixels must be from 1 to 10000.")
    }
    if quiet && verbose { throw ValidationError("Use only one of --quiet and --verbose.") }
  }

  func run() throws {
    let vault = try options.openVault()
    // The paths are checked before the password is asked for: a typo costs nothing.
    let collected = PhotoImporter.collectFiles(paths)
    for case .failed(_, let error) in collected.failures { Diagnostics.error(error.description) }
    if !collected.failures.isEmpty {
      throw BatchFailure(summary: "error: nothing was imported; check the paths named above")
    }
    var credential = try options.credential(for: vault)
    SignalHandling.install()
    var thumbnailer = Thumbnailer()
    thumbnailer.pixelLimit = maxMegapixels * 1_000_000
    let importer = PhotoImporter(thumbnailer: thumbnailer)
    let files = collected.files
    // Decoding starts while the password's key is derived.
    let summary = try importer.importFiles(
      files, skippingNonPhotos: collected.foundInFolders, interruption: SignalHandling.interruption
    ) {
      let space = try options.unlock(vault, with: &credential, access: .write)
      try space.requireIndex()
      return space
    } report: { event, done in
      switch event {
      case .added(let path, _):
        if !quiet { printLine("added \(path)") }
      case .duplicate(let path):
        if !quiet { printLine("skipped \(path) (already in the space)") }
      case .skipped(_, let reason):
        if verbose { printLine("skipped \(reason.description)") }
      case .failed(_, let error):
        Diagnostics.error(error.description)
      case .warning(let path, let message):
        Diagnostics.warning("'\(path)': \(message); imported what could be decoded")
      }
      Diagnostics.progress(done: done, total: files.count, label: eventPath(event))
    }
    Diagnostics.clearProgress()
    if summary.interrupted { throw CommandInterrupted(done: summary.added, of: files.count, "added") }
    var line =
      "added \(summary.added), skipped \(summary.duplicates) duplicate\(summary.duplicates == 1 ? "" : "s"), failed \(summary.failed)"
    if summary.warnings > 0 { line += ", \(summary.warnings) with warnings" }
    printLine(line)
    if summary.skipped > 0 {
      printLine(
        "skipped \(summary.skipped) file\(summary.skipped == 1 ? "" : "s") that \(summary.skipped == 1 ? "is" : "are") not \(ImageFormat.displayNames(joinedBy: "or"))"
          + (verbose ? "" : " (--verbose names them)"))
    }
    if summary.failed > 0 {
      throw BatchFailure(
        summary: "error: \(summary.failed) file\(summary.failed == 1 ? "" : "s") could not be imported")
    }
  }

  private func eventPath(_ event: ImportEvent) -> String {
    switch event {
    case .added(let path, _), .duplicate(let path), .failed(let path, _), .warning(let path, _),
      .skipped(let path, _):
      return path
    }
  }
}
