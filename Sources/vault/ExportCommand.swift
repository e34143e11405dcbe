import ArgumentParser
import Foundation
import VaultCore

struct ExportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Decrypt photos into a folder, byte for byte, under their original names.",
    discussion: """
      Existing files are never overwritten: a taken name gets " (1)", " (2)"… Each file \
      appears only once complete and verified, with its original modification time.
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoice

  @Option(
    help: ArgumentHelp(
      "The folder to write into (default: a new vault-export-<date> folder here).", valueName: "dir"))
  var to: String?

  @Flag(help: "Export the thumbnails (JPEG) instead of the originals.")
  var thumbs = false

  func run() throws {
    let space = try options.unlock(.read)
    SignalHandling.install()
    let models = space.models()
    let browser = PhotoBrowser()
    browser.numberOfPhotos = { models.count }
    browser.photoAtIndex = { models[$0] }
    browser.reloadData()

    let exporter = PhotoExporter(space: space)
    let export: ([PhotoModel]) throws -> (Int, Int, String) = { photos in
      let directory = try targetDirectory()
      var failed = 0
      let (exported, interrupted) = exporter.export(
        photos, to: directory, thumbnails: thumbs, interruption: SignalHandling.interruption
      ) { event in
        switch event {
        case .exported(_, let path): printLine("exported \(path)")
        case .failed(let name, let error):
          failed += 1
          Diagnostics.error("'\(name)' not exported: \(error.description)")
        }
      }
      if interrupted { throw CommandInterrupted(done: exported, of: photos.count, "exported") }
      return (exported, failed, directory)
    }
    let (exported, failed, directory): (Int, Int, String)
    if choice.selected {
      (exported, failed, directory) = try browser.exportSelected(using: export)
    } else if choice.all {
      if models.isEmpty { throw VaultError.invalidArgument("the space has no photos to export") }
      (exported, failed, directory) = try export(models)
    } else {
      (exported, failed, directory) = try export(
        try PhotoSelector.positions(choice.photos, count: models.count).map { models[$0] })
    }
    printLine(
      "exported \(exported) \(thumbs ? "thumbnail" : "photo")\(exported == 1 ? "" : "s") to \(directory)")
    if failed > 0 { throw BatchFailure(summary: "error: \(failed) could not be exported") }
  }

  /// The --to folder (made if missing), or a new `vault-export-<date>` folder here.
  private func targetDirectory() throws -> String {
    if let to {
      try makeFolder(to, mustBeNew: false)
      return to
    }
    var parts = tm()
    var now = time(nil)
    localtime_r(&now, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    strftime(&buffer, buffer.count, "vault-export-%Y-%m-%d", &parts)
    let base = String(cString: buffer)
    for number in 0... {
      let candidate = number == 0 ? base : "\(base) (\(number))"
      if try makeFolder(candidate, mustBeNew: true) { return candidate }
    }
    fatalError("unreachable")
  }

  @discardableResult
  private func makeFolder(_ path: String, mustBeNew: Bool) throws -> Bool {
    var info = stat()
    if stat(path, &info) == 0 {
      if mustBeNew { return false }
      guard (info.st_mode & S_IFMT) == S_IFDIR else {
        throw VaultError.io(path: path, reason: "not a folder")
      }
      return true
    }
    do {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
      throw VaultError.io(path: path, reason: "cannot create folder")
    }
    return true
  }
}
