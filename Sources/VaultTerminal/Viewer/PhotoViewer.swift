import Foundation
import VaultCore

/// `vault view`: Agony's grid and photo pager on a full-screen terminal. Everything it
/// shows comes through the space's `PhotoBrowser`; it keeps no count of its own.
public final class PhotoViewer {
  enum Screen { case grid, photo }

  /// A question on the status line, and what the typed answer is for.
  enum Prompt {
    case goToNumber(String)
    /// The photos to delete, named on screen: the page's photo, or in the grid the selected
    /// photos (else the one under the cursor).
    case confirmDeletion(DeletionText)
    /// The folder being typed, and the photos it is for (chosen as for a deletion).
    case exportFolder(String, photos: [(index: Int, photo: PhotoModel)])
    case albumName(String)
  }

  let terminal: FullScreenTerminal
  let browser: PhotoBrowser
  let graphics: TerminalGraphics
  let drawing: PictureDrawing
  let preloader: OriginalPreloader

  var screen: Screen
  var cursor: GridCursor
  var page: PagePosition
  var viewport: Viewport?
  /// The photo the viewport was made for; a new photo gets a new viewport.
  var viewportPhoto: BlobID?
  var prompt: Prompt?
  var showsInfo = false
  var showsHelp = false
  /// The narrowest terminal that shows the details panel beside the photo.
  static let infoPanelColumns = 60
  /// A one-off line for the status bar (an action's outcome), cleared by the next key.
  var message: String?
  /// The photo whose thumbnail stands in while its original decodes.
  var standIn: (id: BlobID, image: RGBImage)?
  /// How long the page has waited for its photo's original: its thumbnail stands in only
  /// after a tenth of a second. Most originals decode sooner; a thumbnail drawn meanwhile is
  /// a picture the terminal must take before the original (kitty: a megabyte, a tenth of a
  /// second), which only delays it.
  var waitForOriginal = PageWait(seconds: 0.1)
  /// How long the page has shown its photo's original: kitty is sent the whole decoded
  /// original (for the first zoom step) only after half a second. Someone paging through
  /// does not zoom, and it doubled the bytes each page cost.
  var waitBeforeZoomAhead = PageWait(seconds: 0.5)
  /// The photo whose original this frame drew (nil: its thumbnail stands in, or the grid):
  /// the status line says `loading…` until then, and nothing is sent ahead before it.
  var drawnOriginal: BlobID?
  /// The photos under the grid's cursor and on the page, by id, as of the list's revision
  /// `placedAt`: when the list changes (a deletion, dates found that re-sort it, another
  /// command's change seen at a reload), both are found again by id, so that the next key
  /// acts on the photo on screen, not on whatever took its number.
  var cursorPhoto: BlobID?
  var pagePhoto: BlobID?
  var placedAt: Int?
  var running = true
  /// What ended the viewer other than `q` or a signal: the space moved (its password was
  /// changed by another command), said in full once the screen is restored.
  public internal(set) var stoppedBy: Error?
  /// When the space was last read again after a photo failed to load.
  var lastReadAgain: Date?
  /// The video or animation playing on the page, if one is.
  var playback: Playback?
  /// The photo last played: an animation that failed or turned out a still is not tried
  /// again while its page shows.
  var playbackTried: BlobID?

  /// What the screen of an empty space says after that it is empty (the program words it).
  let emptyHint: String

  /// `browser` is a space's, made with the scope the viewer shows: everything the viewer
  /// reads, changes and reads again goes through it.
  public init(
    browser: PhotoBrowser, terminal: FullScreenTerminal, graphics: TerminalGraphics,
    start: Int?,
    emptyHint: String = ""
  ) {
    ChafaPictureDrawing.drawOnCallingThreadOnly()
    self.emptyHint = emptyHint
    self.terminal = terminal
    self.graphics = graphics
    let perRow = browser.numberOfPhotosPerRow
    self.browser = browser
    drawing =
      graphics.isKitty
      ? KittyPictureDrawing(tmux: graphics.tmux, madeAhead: { FullScreenTerminal.wake() })
      : ChafaPictureDrawing(graphics: graphics)
    cursor = GridCursor(index: start ?? 0, perRow: perRow)
    page = PagePosition(index: start ?? 0)
    screen = start == nil ? .grid : .photo
    preloader = OriginalPreloader(
      load: RecordLoader(browser: browser).load,
      finished: { _ in FullScreenTerminal.wake() })
  }

  // MARK: The loop

  /// Runs until `q` or a quit signal; returns the signal, if one ended it.
  public func run() -> Int32? {
    redraw()
    while running, stoppedBy == nil, let event = terminal.nextEvent(timeout: nil) {
      switch event {
      case .key(let key): handle(key)
      case .resize: followTmuxPane()
      case .redraw: drawing.invalidate()
      case .wake: break
      case .graphicsReply(let text): recover(from: text)
      case .quit: running = false
      }
      if running, stoppedBy == nil, !terminal.hasWaitingInput { redraw() }
    }
    stopPlaying()
    preloader.want([])
    if stoppedBy == nil { browser.storeFoundDetails() }
    terminal.write(drawing.finish())
    terminal.flush()
    return terminal.quitSignal
  }

  var count: Int { browser.count }

  /// kitty failed to place a picture: it is sent again in the next frame, or, when it
  /// failed too often, the status line says so.
  func recover(from reply: String) {
    guard let kitty = drawing as? KittyPictureDrawing, let reply = KittyReply(reply), reply.isError,
      let id = reply.imageID
    else { return }
    if kitty.placementFailed(imageID: id) {
      message = "kitty does not show a picture: \(TerminalSafeText.escaped(reply.code))"
    }
  }

  /// Shows an action's failure on the status line. A space that moved (`vault passwd`
  /// elsewhere renamed its folder) ends the viewer instead: nothing it shows or does could
  /// work from then on, and the status line would cut the message short.
  /// `photo`: the photo whose reading failed, if it was one.
  func report(_ error: Error, as kind: String = "error", reading photo: PhotoModel? = nil) {
    if case VaultError.spaceMoved = error {
      stoppedBy = error
      return
    }
    if let photo, readAgain(afterFailureOf: photo) { return }
    message = "\(kind): \(error)"
  }

  /// When reading a photo fails: another command may have deleted it since the viewer read
  /// the space. The space is read again (at most once a second, and only if no other
  /// command holds it) and the screen drawn anew. Returns whether the photo is gone: it is
  /// then said to be, rather than called damaged.
  func readAgain(afterFailureOf photo: PhotoModel) -> Bool {
    let now = Date()
    if let lastReadAgain, now.timeIntervalSince(lastReadAgain) < 1 { return false }
    lastReadAgain = now
    do {
      // A space that no longer reads whole shows what is left of it, as any list does.
      _ = try browser.readAgain(waitingAtMost: 0)
      browser.reloadData()
    } catch {
      report(error)
      return true
    }
    guard browser.index(of: photo.record.id) == nil else { return false }
    message =
      "'\(TerminalSafeText.escaped(browser.shownNames.of(photo.record)))' was deleted by another command"
    FullScreenTerminal.wake()
    return true
  }

  /// A character cell in pixels: as the terminal reports it now (a font change), else as
  /// measured when the viewer started.
  var cell: PixelSize {
    terminal.size.cell ?? PixelSize(width: graphics.characterWidth, height: graphics.characterHeight)
  }
}
