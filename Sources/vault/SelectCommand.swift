import ArgumentParser
import VaultCore

struct SelectCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "select",
    abstract: "Select photos for delete --selected or export --selected.",
    discussion: """
      The selection is stored, encrypted, in the space and lasts until changed. With \
      --album, --since or --until, --all, --none and --invert change only the photos they \
      take, and numbers count within them.
      """)

  @OptionGroup var options: VaultOptions

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      "Photos to select by number, range or id (e.g. 2 5-7, 2-3,9, 100-).", valueName: "photos"))
  var photos: [String] = []

  @Flag(help: "Select every photo.")
  var all = false

  @OptionGroup var scope: ScopeOptions

  @Flag(help: "Clear the selection.")
  var none = false

  @Flag(help: "Select the unselected photos and unselect the selected ones.")
  var invert = false

  func validate() throws {
    let ways = [!photos.isEmpty, all, none, invert].filter { $0 }.count
    if ways == 0 { throw ValidationError("Name photos by number, or pass --all, --none or --invert.") }
    if ways > 1 { throw ValidationError("Use only one of: photo numbers, --all, --none, --invert.") }
    try validatePhotoTerms(photos)
  }

  func run() throws {
    let space = try options.unlock(.write)
    // A signal from here on lets the one index write finish, and the command ends normally.
    SignalHandling.install()
    let browser = try scope.browser(for: space)
    if all || none {
      try browser.setSelected(Array(0..<browser.count), all)
    } else if invert {
      try browser.invertSelection()
    } else {
      try browser.setSelected(try chosen(photos, in: browser), true)
    }
    printSelectionCount(browser, scope: scope)
  }
}

struct UnselectCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "unselect",
    abstract: "Unselect photos.")

  @OptionGroup var options: VaultOptions

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp("Photos to unselect by number, range or id (e.g. 5 or 2-4).", valueName: "photos"))
  var photos: [String] = []

  @Flag(help: "Unselect every photo (the same as select --none).")
  var all = false

  @OptionGroup var scope: ScopeOptions

  func validate() throws {
    if photos.isEmpty && !all { throw ValidationError("Name photos by number, or pass --all.") }
    if !photos.isEmpty && all { throw ValidationError("Use only one of: photo numbers, --all.") }
    try validatePhotoTerms(photos)
  }

  func run() throws {
    let space = try options.unlock(.write)
    SignalHandling.install()
    let browser = try scope.browser(for: space)
    try browser.setSelected(all ? Array(0..<browser.count) : try chosen(photos, in: browser), false)
    printSelectionCount(browser, scope: scope)
  }
}

/// The 0-based indexes of the photos named by `photos` (numbers, ranges, ids).
private func chosen(_ photos: [String], in browser: PhotoBrowser) throws -> [Int] {
  try browser.photos(chosenBy: .photos(PhotoSelector.parse(photos)), action: "selecting").map(\.index)
}

private func printSelectionCount(_ browser: PhotoBrowser, scope: ScopeOptions) {
  let count = browser.count
  printLine(
    "\(browser.selectedPhotos().count) of \(count) photo\(count == 1 ? "" : "s")\(scope.described) selected")
}
