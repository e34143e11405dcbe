import ArgumentParser
import VaultCore

struct AddCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Import photos (files or folders, recursively) into the space.",
    discussion: """
      JPEG and PNG files are recognised by their content and get a thumbnail; photos already \
      in the space are skipped. Each imported file is printed as it is stored; a summary ends \
      the run, and the exit status is 1 if any file failed.
      """)

  @OptionGroup var options: VaultOptions

  @Flag(name: .shortAndLong, help: "Print only the summary and errors.")
  var quiet = false

  @Option(help: "Refuse photos of more megapixels than this, before decoding them.")
  var maxMegapixels = Thumbnailer().pixelLimit / 1_000_000

  @Argument(help: "Files and folders to import.", completion: .file())
  var paths: [String]

  func validate() throws {
    if paths.isEmpty { throw ValidationError("Name at least one file or folder to import.") }
    if maxMegapixels < 1 || maxMegapixels > 10_000 {
      throw ValidationError("--max-megapixels must be from 1 to 10000.")
    }
  }

  func run() throws {
    let vault = try options.openVault()
    let password = try options.password()
    SignalHandling.install()
    let (files, collectFailures) = PhotoImporter.collectFiles(paths)
    var thumbnailer = Thumbnailer()
    thumbnailer.pixelLimit = maxMegapixels * 1_000_000
    let importer = PhotoImporter(thumbnailer: thumbnailer)
    var failed = 0
    // Decoding starts while the password's key is derived; paths that could not be read
    // are reported once the space is open.
    let unlock = {
      let space = try vault.unlock(password: password, access: .write)
      try space.requireIndex()
      for case .failed(_, let error) in collectFailures {
        Diagnostics.error(error.description)
        failed += 1
      }
      return space
    }
    let summary = try importer.importFiles(
      files, unlocking: unlock, interruption: SignalHandling.interruption
    ) { event, done in
      switch event {
      case .added(let path, _):
        if !quiet { printLine("added \(path)") }
      case .duplicate(let path):
        if !quiet { printLine("skipped \(path) (already in the space)") }
      case .failed(_, let error):
        Diagnostics.error(error.description)
      case .warning(let path, let message):
        Diagnostics.warning("'\(path)': \(message); imported what could be decoded")
      }
      Diagnostics.progress(done: done, total: files.count, label: eventPath(event))
    }
    Diagnostics.clearProgress()
    if summary.interrupted { throw CommandInterrupted(done: summary.added, of: files.count, "added") }
    failed += summary.failed
    var line =
      "added \(summary.added), skipped \(summary.duplicates) duplicate\(summary.duplicates == 1 ? "" : "s"), failed \(failed)"
    if summary.warnings > 0 { line += ", \(summary.warnings) with warnings" }
    printLine(line)
    if failed > 0 {
      throw BatchFailure(summary: "error: \(failed) file\(failed == 1 ? "" : "s") could not be imported")
    }
  }

  private func eventPath(_ event: ImportEvent) -> String {
    switch event {
    case .added(let path, _), .duplicate(let path), .failed(let path, _), .warning(let path, _): return path
    }
  }
}
