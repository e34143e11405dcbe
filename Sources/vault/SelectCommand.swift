import ArgumentParser
import VaultCore
import VaultTerminal

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
    let before = selectedIDs(in: space)
    var named = Set<BlobID>()
    if all || none {
      named = Set(browser.listed(selectedOnly: false, from: nil, count: nil).map(\.photo.record.id))
      try browser.setSelected(Array(0..<browser.count), all)
    } else if invert {
      try browser.invertSelection()
    } else {
      let indexes = try chosen(photos, in: browser)
      named = Set(indexes.map(browser.id(at:)))
      try browser.setSelected(indexes, true)
    }
    // The selection lasts: photos selected days ago would be deleted with these by
    // `delete --selected`. Said when this command added to them.
    let after = selectedIDs(in: space)
    let earlier = none || invert ? 0 : after.intersection(before).subtracting(named).count
    guard earlier > 0 else { return printSelectionCount(browser, scope: scope) }
    let fromBefore = "(\(earlier) of them from before; 'vault select --none' clears)"
    if try scope.scope.filters {
      printSelectionCount(browser, scope: scope, then: "; \(after.count) in the space \(fromBefore)")
    } else {
      printSelectionCount(browser, scope: scope, then: " " + fromBefore)
    }
  }

  /// The ids of the photos selected in the whole space, whatever the scope.
  private func selectedIDs(in space: Space) -> Set<BlobID> {
    let browser = space.makeBrowser()
    return Set(browser.selectedIndexes().map(browser.id(at:)))
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

/// "3 of 5 photos selected", then `then`.
private func printSelectionCount(_ browser: PhotoBrowser, scope: ScopeOptions, then: String = "") {
  let count = browser.count
  printLine(
    "\(browser.selectedIndexes().count) of \(count) photo\(count == 1 ? "" : "s")\(scope.described) selected"
      + then)
}
