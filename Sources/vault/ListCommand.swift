import ArgumentParser
import VaultCore

struct ListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List the photos of the space, numbered from 1 in import order.")

  @OptionGroup var options: VaultOptions

  @Option(help: "Lay photos out in a grid of this many cells a row.")
  var perRow: Int?

  @Flag(help: "Print one JSON array for scripts.")
  var json = false

  func validate() throws {
    if let perRow, perRow < 1 { throw ValidationError("--per-row must be at least 1.") }
    if json && perRow != nil { throw ValidationError("--json and --per-row cannot be used together.") }
  }

  func run() throws {
    let space = try options.unlock(.read)
    let models = space.models()
    let browser = PhotoBrowser(numberOfPhotosPerRow: perRow ?? 1)
    browser.numberOfPhotos = { models.count }
    browser.photoAtIndex = { models[$0] }
    browser.reloadData()
    let all = browser.rows().flatMap { $0 }
    if json {
      printLine(try PhotoListing.json(all))
      return
    }
    if all.isEmpty {
      printLine("no photos in this space")
      Diagnostics.hint("add some with 'vault add PATH'")
      return
    }
    let columns = Terminal.columns
    let lines: [String]
    if let perRow {
      let layout = try GridLayout(columns: columns, perRow: perRow)
      lines = PhotoListing.grid(browser.rows(), layout: layout)
    } else {
      lines = PhotoListing.table(all, columns: columns)
    }
    for line in lines { printLine(line) }
  }
}
