import ArgumentParser
import VaultCore

struct DeleteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete photos (original and thumbnail) from the space.",
    discussion: "Asks for confirmation on a terminal; scripts must pass --yes.")

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoice

  @Flag(name: .shortAndLong, help: "Delete without asking.")
  var yes = false

  func run() throws {
    let space = try options.unlock(.write)
    let models = space.models()
    let browser = PhotoBrowser()
    var current = models
    browser.numberOfPhotos = { current.count }
    browser.photoAtIndex = { current[$0] }
    browser.reloadRequest = { current = space.models() }
    browser.reloadData()

    let doomed: [PhotoModel]
    if choice.selected {
      doomed = browser.selectedPhotos().map(\.photo)
      if doomed.isEmpty { throw VaultError.nothingSelected(action: "deleting") }
    } else if choice.all {
      doomed = models
      if doomed.isEmpty { throw VaultError.invalidArgument("the space has no photos to delete") }
    } else {
      doomed = try PhotoSelector.positions(choice.photos, count: models.count).map { models[$0] }
    }
    try confirm(doomed)
    // A signal from here on lets the index write and the unlinks finish (a second one
    // exits at once; the next writer removes what is left), and the command ends normally.
    SignalHandling.install()
    let ids = Set(doomed.map(\.record.id))
    if choice.selected {
      try browser.deleteSelected { _ in try space.deletePhotos(ids: ids) }
    } else {
      try space.deletePhotos(ids: ids)
      browser.reloadRequest?()
    }
    printLine("deleted \(ids.count) photo\(ids.count == 1 ? "" : "s"); \(browser.count) left")
  }

  private func confirm(_ photos: [PhotoModel]) throws {
    if yes { return }
    let what = photos.count == 1 ? "'\(photos[0].record.name)'" : "\(photos.count) photos"
    guard let answer = Terminal.confirm("Delete \(what)? This cannot be undone.") else {
      throw VaultError.invalidArgument("not deleting without confirmation: pass --yes when not on a terminal")
    }
    if !answer { throw VaultError.invalidArgument("nothing deleted") }
  }
}
