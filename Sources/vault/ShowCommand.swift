import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct ShowCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Print photos in the terminal, each fitted to its size, with a label line.",
    discussion: """
      Each photo is decrypted and decoded in memory, turned as its EXIF orientation says, \
      and drawn like the grid of 'vault list --per-row' (kitty, iTerm2 or sixel graphics, \
      else coloured Unicode symbols). Piped output, NO_COLOR and TERM=dumb print only the \
      label lines: number, name, pixel size, and the date taken when the file gives it. A \
      photo imported before vault read dates gets its date taken from its original as it \
      is shown (stored if no other command holds the space).
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoiceOptions
  @OptionGroup var scope: ScopeOptions
  @OptionGroup var decoder: DecoderOptions

  @Option(help: "Width in character cells (default: the terminal's).")
  var width: Int?

  @Option(help: "Height in character cells (default: the terminal's, less the label line).")
  var height: Int?

  @Option(help: "How to draw: auto, kitty, iterm2, sixel, symbols or text.")
  var mode: DisplayMode = .auto

  /// Beyond this many cells, a picture is no longer something to look at (and libchafa's
  /// buffers would grow without bound).
  static let largestSide = 1000

  func validate() throws {
    for (name, value) in [("--width", width), ("--height", height)] {
      guard let value else { continue }
      if value < 1 || value > Self.largestSide {
        throw ValidationError("\(name) must be from 1 to \(Self.largestSide) cells.")
      }
    }
  }

  func run() throws {
    // The decoder helper starts while the key is derived, when there are pictures to draw
    // (labels alone decode nothing).
    let decoders = DecoderPool(size: 1, limits: decoder.limits)
    if !TerminalGraphics.isTextOnly(mode) { decoders.prestart() }
    let space = try options.unlock(.read)
    let browser = try scope.browser(for: space)
    browser.stillDecoders = decoders
    let photos = try browser.photos(chosenBy: try choice.choice, action: "showing")
    let graphics = try TerminalGraphics.forOption(mode)
    let columns = min(width ?? Terminal.columns, Self.largestSide)
    let rows = min(height ?? max(1, (Terminal.rows ?? 25) - 2), Self.largestSide)
    var failed = 0
    // Stored once all are shown (never failing the command), as a reader stores nothing
    // while it holds the space.
    defer { browser.storeFoundDetails() }
    for item in photos {
      guard let graphics else {
        printLine(browser.shownLabel(item))
        continue
      }
      do {
        for line in try browser.printedPhoto(item, graphics: graphics, columns: columns, rows: rows) {
          printRaw(line)
        }
        printLine(browser.shownLabel(item))
      } catch {
        failed += 1
        Diagnostics.error(
          "'\(browser.shownNames(of: [item.photo]).of(item.photo.record))' not shown: \(error)")
      }
    }
    if failed > 0 {
      throw BatchFailure(summary: "error: \(failed) photo\(failed == 1 ? "" : "s") could not be shown")
    }
  }
}
