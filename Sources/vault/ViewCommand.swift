import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct ViewCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "view",
    abstract: "Browse the photos full screen: a grid, and each photo with zoom and pan.",
    discussion: """
      Starts in the grid (arrows or hjkl move, space selects, a adds the selected photos \
      to an album, d moves them to Recently Deleted after naming them, e exports them; none selected: the \
      photo under the cursor; Enter opens a photo), or on photo N; with --album, --since, --until or \
      --sort, only those photos, numbered within them. In a photo: + and - zoom, z switches between fit and 1:1, arrows pan when \
      zoomed, n and p (or → and ←) page, s selects, d moves it to Recently Deleted, e exports, i shows details \
      (date taken, camera, sizes), \
      Enter or space plays a video, Enter a Live Photo's motion (space pauses, → and ← go 10 s on or back, q stops; \
      no sound; read from the vault as it plays, never decrypted whole), an animated GIF \
      or WebP animates by itself, \
      Esc goes back to the grid, ? lists every key, q quits. Draws with kitty, iTerm2 or \
      sixel graphics where the terminal has them (asked of the terminal itself: kitty by \
      TERM=xterm-kitty or its answer to kitty's query, sixel by its device attributes), \
      else coloured Unicode symbols. Inside tmux (3.3 or later) with its passthrough on \
      (tmux set -g allow-passthrough on), kitty or sixel graphics through it (kitty where \
      tmux runs in kitty, sixel where libchafa knows that terminal has them, or with --mode \
      sixel); with it off, symbols in true colour, and --mode kitty or sixel is refused \
      (iterm2 always). vault \
      writes nothing decrypted to disk; kitty itself keeps the images it is sent in a disk \
      cache until vault deletes them (use --mode symbols to avoid that). Other \
      vault commands can use the space meanwhile: view locks it only while it reads or \
      changes it. A photo imported before vault read dates gets its date taken from its \
      original as it is shown; it is stored when you go back to the grid or quit, unless \
      another command holds the space then (it is read again next time).
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var scope: ScopeOptions
  @OptionGroup var decoder: DecoderOptions

  @Argument(
    help: ArgumentHelp("Open this photo (a number or an id) instead of the grid.", valueName: "photo"))
  var photo: String?

  @Option(help: "Grid cells a row.")
  var perRow = 4

  @Option(help: "How to draw: auto, kitty, iterm2, sixel or symbols.")
  var mode = PictureMode(.auto)

  func validate() throws {
    if perRow < 1 { throw ValidationError("--per-row must be at least 1.") }
    // Checked before the password is asked for, as list does.
    do {
      _ = try GridLayout.forOption(columns: Terminal.columns, perRow: perRow)
    } catch let error as VaultError {
      throw ValidationError(error.description)
    }
    if mode.mode == .text {
      throw ValidationError("view draws pictures; for text use 'vault list' or 'vault show --mode text'.")
    }
    if let photo {
      let terms = try parsedTerms(photo)
      guard terms.count == 1, terms[0].namesOnePhoto else {
        throw ValidationError("view opens one photo: give one number or id, not '\(photo)'.")
      }
    }
  }

  private func parsedTerms(_ text: String) throws -> [PhotoSelector.Term] {
    do {
      return try PhotoSelector.parse([text])
    } catch let error as VaultError {
      throw ValidationError(error.description)
    }
  }

  private static let otherwise = "to see photos otherwise use 'vault show N', 'vault list' or 'vault export'"

  func run() throws {
    // Checked before the password is asked for.
    guard Terminal.stdoutIsTerminal, ControllingTerminal() != nil else {
      throw VaultError.invalidArgument("vault view needs a terminal; " + Self.otherwise)
    }
    if (try? GridLayout(columns: Terminal.columns, perRow: perRow)) == nil {
      throw ValidationError(
        "\(perRow) photos a row do not fit in \(Terminal.columns) columns; use --per-row \(max(1, GridLayout.maximumPerRow(columns: Terminal.columns)))"
      )
    }
    // The decoder helper starts while the key is derived.
    let decoders = DecoderPool(size: 1, limits: decoder.limits)
    decoders.prestart()
    let space = try options.unlock(.read)
    // The viewer stays open for as long as the user looks: other commands must not wait
    // for it. It reads and changes the space under short locks (Space.reload, .change).
    space.releaseLock()
    let browser = try scope.browser(for: space, perRow: perRow)
    browser.stillDecoders = decoders
    // Videos and animations play in a helper of their own, under the same limits.
    browser.playbackDecoders = DecoderPool(size: 1, limits: decoder.limits)
    var start: Int?
    if let photo {
      start = try browser.photos(chosenBy: .photos(parsedTerms(photo)), action: "viewing").first?.index
    }
    guard let graphics = try TerminalGraphics.forOption(mode.mode) else {
      throw VaultError.invalidArgument(
        "vault view draws in colour, and NO_COLOR or TERM=dumb says not to; pass --mode symbols to draw anyway, or use 'vault list'"
      )
    }
    // A line about waiting for the space would land in the middle of the picture; a
    // change that waits too long fails with its own message in the status line.
    Space.onLockWait(nil)
    // What the viewer's changes deleted as expired is named on the normal screen, after the
    // deferred restore below.
    defer { ExpiredNames.warn(space) }
    let terminal: FullScreenTerminal
    do {
      terminal = try FullScreenTerminal()
    } catch let unavailable as FullScreenTerminal.Unavailable {
      throw VaultError.invalidArgument(
        "vault view needs a terminal, and \(unavailable.reason); " + Self.otherwise)
    }
    defer { terminal.restore() }
    let viewer = PhotoViewer(
      browser: browser, terminal: terminal, graphics: graphics, start: start,
      emptyHint: "add some with 'vault add PATH'")
    if let signal = viewer.run() {
      // As a shell reports a command ended by a signal.
      throw ExitCode(128 + signal)
    }
    // Said after the screen is restored (the deferred restore runs before the error is
    // printed), whole, on the normal screen.
    if let stoppedBy = viewer.stoppedBy { throw stoppedBy }
  }
}
