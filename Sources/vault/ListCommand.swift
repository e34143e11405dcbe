import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct ListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List the photos of the space, numbered from 1 by date taken (else imported).",
    discussion: """
      Photos are numbered by their place in the list shown: with --album, --since, \
      --until or --sort the numbers count within that list, and other commands given the \
      same options number the photos the same way. Ids (--json) never change. \
      Each photo's date is when it was taken, as its camera's clock read (EXIF \
      DateTimeOriginal; a PNG's eXIf, else its tIME); a date marked * is the import date, \
      for a photo whose file does not say, or one imported before vault read dates that \
      'vault verify --repair' or 'vault view' has not read yet. --json gives "taken" in ISO \
      8601 (with the UTC offset when the file gives it), "cameraMake" and "cameraModel", \
      each only when known.

      Each photo is listed under the name its file shows under in 'vault export' and \
      'vault mount': the name it was imported under, unless another file of the space \
      had it first (then numbered: 'IMG (1).jpg') or it is not a safe file name. --json \
      gives that name as "name", and the name imported under as "importedName" only when \
      it differs (a Live Photo's "motion" likewise).

      With --per-row on a terminal, draws each photo's thumbnail in a grid (kitty, iTerm2 \
      or sixel graphics where the terminal says it has them, else coloured Unicode symbols; \
      inside tmux, through its passthrough when it is on, else symbols in true colour, as \
      'vault view --help' says). Only \
      the thumbnails being drawn are decrypted, row by row, in memory. Piped output, \
      NO_COLOR and TERM=dumb get the text layout.
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var scope: ScopeOptions

  @Option(help: "Lay photos out in a grid of this many cells a row.")
  var perRow: Int?

  @Option(help: "How to draw the grid: auto, kitty, iterm2, sixel, symbols or text.")
  var mode: DisplayMode = .auto

  @Flag(help: "List only the selected photos.")
  var selected = false

  @Option(help: "Start at this photo number.")
  var from: Int?

  @Option(help: "List at most this many photos.")
  var count: Int?

  @Flag(help: "Print one JSON array for scripts.")
  var json = false

  func validate() throws {
    if let perRow, perRow < 1 { throw ValidationError("--per-row must be at least 1.") }
    if let from, from < 1 { throw ValidationError("--from must be at least 1.") }
    if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
    if json && perRow != nil { throw ValidationError("--json and --per-row cannot be used together.") }
    if json && mode != .auto { throw ValidationError("--json never draws; leave out --mode.") }
    // Checked before the password is asked for: the width is known already.
    if let perRow {
      do {
        _ = try GridLayout.forOption(columns: Terminal.columns, perRow: perRow)
      } catch let error as VaultError {
        throw ValidationError(error.description)
      }
    }
  }

  func run() throws {
    let space = try options.unlock(.read)
    let browser = try scope.browser(for: space, perRow: perRow ?? 1)
    let photos = browser.listed(selectedOnly: selected, from: from, count: count)
    let remote = browser.dataSource.remoteOriginals()
    let names = browser.shownNames(of: photos.map(\.photo))

    if json {
      printRaw(try PhotoListing.json(photos, names: names, remote: remote))
      return
    }
    if photos.isEmpty {
      let spaceIsEmpty = space.makeBrowser().count == 0
      printLine(spaceIsEmpty ? "no photos in this space" : "no photos to list" + scope.described)
      if spaceIsEmpty { Diagnostics.hint("add some with 'vault add PATH'") }
      return
    }
    let columns = Terminal.columns
    guard let perRow else {
      for line in PhotoListing.table(photos, names: names, columns: columns, remote: remote) {
        printLine(line)
      }
      return
    }
    let layout = try GridLayout.forOption(columns: columns, perRow: perRow)
    let rows = browser.rows(of: photos)
    guard let graphics = try TerminalGraphics.forOption(mode) else {
      for line in PhotoListing.grid(rows, names: names, layout: layout, remote: remote) {
        printLine(line)
      }
      return
    }
    browser.printGrid(rows, layout: layout, graphics: graphics, write: printRaw) { error in
      Diagnostics.warning("\(error); drawn as a gray cell")
    }
  }
}
