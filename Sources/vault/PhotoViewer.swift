import Foundation
import VaultCore

/// `vault view`: Agony's grid and photo pager on a full-screen terminal. Everything it
/// shows comes through the space's `PhotoBrowser`; it keeps no count of its own.
final class PhotoViewer {
  enum Screen { case grid, photo }

  /// A question on the status line, and what the typed answer is for.
  enum Prompt {
    case goToNumber(String)
    case confirmDeletion(PhotoModel)
    case exportFolder(String)
    case albumName(String)
  }

  private let terminal: FullScreenTerminal
  private let space: Space
  private let browser: PhotoBrowser
  private let graphics: TerminalGraphics
  private let drawing: PictureDrawing
  private let preloader: OriginalPreloader

  private var screen: Screen
  private var cursor: GridCursor
  private var page: PagePosition
  private var viewport: Viewport?
  /// The photo the viewport was made for; a new photo gets a new viewport.
  private var viewportPhoto: BlobID?
  private var prompt: Prompt?
  private var showsInfo = false
  private var showsHelp = false
  /// The narrowest terminal that shows the details panel beside the photo.
  static let infoPanelColumns = 60
  /// A one-off line for the status bar (an action's outcome), cleared by the next key.
  private var message: String?
  /// The photo whose thumbnail stands in while its original decodes.
  private var standIn: (id: BlobID, image: RGBImage)?
  /// The photo whose original this frame drew (nil: its thumbnail stands in, or the grid):
  /// the status line says `loading…` until then, and nothing is sent ahead before it.
  private var drawnOriginal: BlobID?
  /// The photos under the grid's cursor and on the page, by id, as of the list's revision
  /// `placedAt`: when the list changes (a deletion, dates found that re-sort it, another
  /// command's change seen at a reload), both are found again by id, so that the next key
  /// acts on the photo on screen, not on whatever took its number.
  private var cursorPhoto: BlobID?
  private var pagePhoto: BlobID?
  private var placedAt: Int?
  private var running = true
  /// What ended the viewer other than `q` or a signal: the space moved (its password was
  /// changed by another command), said in full once the screen is restored.
  private(set) var stoppedBy: Error?
  /// When the space was last read again after a photo failed to load.
  private var lastReadAgain: Date?

  /// `browser` is `space`'s, made with the scope the viewer shows.
  init(
    space: Space, browser: PhotoBrowser, terminal: FullScreenTerminal, graphics: TerminalGraphics, start: Int?
  ) {
    self.space = space
    self.terminal = terminal
    self.graphics = graphics
    let perRow = browser.numberOfPhotosPerRow
    self.browser = browser
    drawing = graphics.isKitty ? KittyPictureDrawing() : ChafaPictureDrawing(graphics: graphics)
    cursor = GridCursor(index: start ?? 0, perRow: perRow)
    page = PagePosition(index: start ?? 0)
    screen = start == nil ? .grid : .photo
    preloader = OriginalPreloader(
      load: { request in try browser.originalImage(of: request.record, minimumSize: request.minimumSize) },
      finished: { _ in FullScreenTerminal.wake() })
  }

  // MARK: The loop

  /// Runs until `q` or a quit signal; returns the signal, if one ended it.
  func run() -> Int32? {
    redraw()
    while running, stoppedBy == nil, let event = terminal.nextEvent(timeout: nil) {
      switch event {
      case .key(let key): handle(key)
      case .resize: break
      case .redraw: drawing.invalidate()
      case .wake: break
      case .quit: running = false
      }
      if running, stoppedBy == nil { redraw() }
    }
    preloader.want([])
    if stoppedBy == nil { browser.storeFoundDetails() }
    terminal.write(drawing.finish())
    terminal.flush()
    return terminal.quitSignal
  }

  private var count: Int { browser.count }

  /// Shows an action's failure on the status line. A space that moved (`vault passwd`
  /// elsewhere renamed its folder) ends the viewer instead: nothing it shows or does could
  /// work from then on, and the status line would cut the message short.
  /// `photo`: the photo whose reading failed, if it was one.
  private func report(_ error: Error, as kind: String = "error", reading photo: PhotoModel? = nil) {
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
  private func readAgain(afterFailureOf photo: PhotoModel) -> Bool {
    let now = Date()
    if let lastReadAgain, now.timeIntervalSince(lastReadAgain) < 1 { return false }
    lastReadAgain = now
    do {
      try space.reload(waitingAtMost: 0)
    } catch {
      report(error)
      return true
    }
    guard browser.index(of: photo.record.id) == nil else { return false }
    message = "'\(TerminalSafeText.escaped(photo.record.name))' was deleted by another command"
    FullScreenTerminal.wake()
    return true
  }

  /// A character cell in pixels: as the terminal reports it now (a font change), else as
  /// measured when the viewer started.
  private var cell: PixelSize {
    terminal.size.cell ?? PixelSize(width: graphics.characterWidth, height: graphics.characterHeight)
  }

  // MARK: Keys

  /// Finds the photos of the cursor and the page again after the list changed; a photo
  /// that is no longer listed leaves its place to the one that took its number.
  private func followPhotos() {
    let revision = browser.listRevision()
    if revision != placedAt {
      if let cursorPhoto, let index = browser.index(of: cursorPhoto) { cursor.index = index }
      if let pagePhoto, let index = browser.index(of: pagePhoto) { page.index = index }
      cursor.clamp(count: count)
      page.clamp(count: count)
      placedAt = revision
    }
    cursorPhoto = cursor.index < count ? browser.photo(at: cursor.index)?.record.id : nil
    pagePhoto = page.index < count ? browser.photo(at: page.index)?.record.id : nil
  }

  private func handle(_ key: Key) {
    followPhotos()
    defer { followPhotos() }
    message = nil
    if let prompt {
      answer(prompt, key)
      return
    }
    if showsHelp {
      showsHelp = false
      return
    }
    switch key {
    case .character("q"):
      running = false
    case .character("?"):
      showsHelp = true
    default:
      if count == 0 {
        message = browser.emptyText
        return
      }
      screen == .grid ? handleGrid(key) : handlePhoto(key)
    }
  }

  private func handleGrid(_ key: Key) {
    let visibleRows = gridGeometry.visibleRows
    switch key {
    case .left, .character("h"): cursor.move(dx: -1, dy: 0, count: count)
    case .right, .character("l"): cursor.move(dx: 1, dy: 0, count: count)
    case .up, .character("k"): cursor.move(dx: 0, dy: -1, count: count)
    case .down, .character("j"): cursor.move(dx: 0, dy: 1, count: count)
    case .pageUp: cursor.page(-1, visibleRows: visibleRows, count: count)
    case .pageDown: cursor.page(1, visibleRows: visibleRows, count: count)
    case .home, .character("g"): cursor.home()
    case .end, .character("G"): cursor.end(count: count)
    case .character(" "), .character("s"): toggleSelection(of: cursor.index)
    case .character("a"): ask(.albumName(""))
    case .enter:
      page = PagePosition(index: cursor.index)
      screen = .photo
    default: break
    }
    cursor.scrollToCursor(visibleRows: visibleRows)
  }

  private func handlePhoto(_ key: Key) {
    let zoomed = viewport?.isZoomed ?? false
    let tall = viewport?.isTall ?? false
    switch key {
    case .character("n"), .character(" "): page.next(count: count)
    case .character("p"): page.previous(count: count)
    case .right where !zoomed, .character("l") where !zoomed: page.next(count: count)
    case .left where !zoomed, .character("h") where !zoomed: page.previous(count: count)
    case .home: page.first()
    case .end: page.last(count: count)
    case .pageDown where zoomed || tall: viewport?.pan(dx: 0, dy: 4)
    case .pageUp where zoomed || tall: viewport?.pan(dx: 0, dy: -4)
    case .pageDown: page.next(count: count)
    case .pageUp: page.previous(count: count)
    case .character("g"): ask(.goToNumber(""))
    case .character("+"), .character("="): viewport?.zoomIn()
    case .character("-"): viewport?.zoomOut()
    case .character("z"): viewport?.toggleActualSize()
    case .left, .character("h"): viewport?.pan(dx: -1, dy: 0)
    case .right, .character("l"): viewport?.pan(dx: 1, dy: 0)
    case .up where zoomed || tall, .character("k") where zoomed || tall: viewport?.pan(dx: 0, dy: -1)
    case .down where zoomed || tall, .character("j") where zoomed || tall: viewport?.pan(dx: 0, dy: 1)
    case .character("s"): toggleSelection(of: page.index)
    case .character("d"): ask(.confirmDeletion(browser.photo(at: page.index)!))
    case .character("e"): ask(.exportFolder(""))
    case .character("i"):
      showsInfo.toggle()
      if showsInfo && terminal.size.columns < Self.infoPanelColumns {
        message = "details need a terminal \(Self.infoPanelColumns) columns wide"
        showsInfo = false
      }
    case .escape, .backspace:
      // Stored between photos, not while paging: a change takes the space's lock.
      browser.storeFoundDetails()
      cursor.index = page.index
      cursor.scrollToCursor(visibleRows: gridGeometry.visibleRows)
      screen = .grid
    default: break
    }
    if browser.foundDetails.count >= Self.detailsBatch { browser.storeFoundDetails() }
  }

  /// How many photos' details (read from originals decoded for showing, for photos
  /// imported before vault read them) are kept before they are stored, in one change.
  static let detailsBatch = 32

  /// Asks `question` on the status line. Before a deletion, keys typed before it was asked
  /// (type-ahead) are dropped, so that only a key pressed after the question answers it.
  private func ask(_ question: Prompt) {
    if case .confirmDeletion = question { terminal.discardPendingInput() }
    prompt = question
  }

  /// Said when an Enter came with other input (a paste that ends in a new line): only one
  /// pressed on its own answers a question that writes photos out.
  static let pressEnterToConfirm = "press Enter to confirm"

  /// The longest answer a prompt takes: a path, an album name (a paste of a book is cut,
  /// rather than trimmed again at every frame).
  static let answerLimit = 4096

  private func answer(_ current: Prompt, _ key: Key) {
    defer {
      switch prompt {
      case .exportFolder(let typed) where typed.count > Self.answerLimit:
        prompt = .exportFolder(String(typed.prefix(Self.answerLimit)))
      case .albumName(let typed) where typed.count > Self.answerLimit:
        prompt = .albumName(String(typed.prefix(Self.answerLimit)))
      case .goToNumber(let typed) where typed.count > 18:
        prompt = .goToNumber(String(typed.prefix(18)))
      default: break
      }
    }
    switch (current, key) {
    case (.goToNumber(let typed), .paste(let text)):
      prompt = .goToNumber(typed + text.filter { $0.isASCII && $0.isNumber })
    case (.exportFolder(let typed), .paste(let text)):
      prompt = .exportFolder(typed + text)
    case (.albumName(let typed), .paste(let text)):
      prompt = .albumName(typed + text)
    case (_, .paste):
      // A paste never answers a yes/no question.
      break
    case (_, .escape):
      prompt = nil
    case (.confirmDeletion(let photo), _):
      prompt = nil
      if key == .character("y") || key == .character("Y") {
        // Only a y typed on its own: one that came in a burst of input was sent, not typed.
        if terminal.lastKeyWasTyped {
          delete(photo)
        } else {
          message = "nothing deleted: the y came with other input; press d, then y on its own"
        }
      } else {
        message = "nothing deleted"
      }
    case (.goToNumber(let typed), .enter):
      prompt = nil
      if let number = Int(typed), page.go(toNumber: number, count: count) {
        screen = .photo
      } else {
        message = "no photo \(typed.isEmpty ? "given" : typed); photos are 1 to \(count)"
      }
    case (.goToNumber(let typed), .character(let character)) where character.isASCII && character.isNumber:
      prompt = .goToNumber(typed + String(character))
    case (.goToNumber(let typed), .backspace):
      prompt = .goToNumber(String(typed.dropLast()))
    case (.exportFolder(let typed), .enter):
      // Only an Enter typed on its own writes photos out of the vault: one in a burst of
      // input (the rest of a paste) leaves the question open, and says so: ignored silently,
      // it looked as if the viewer had not heard it.
      guard terminal.lastKeyWasTyped else {
        message = Self.pressEnterToConfirm
        break
      }
      prompt = nil
      export(to: typed.isEmpty ? nil : typed)
    case (.exportFolder(let typed), .backspace):
      prompt = .exportFolder(String(typed.dropLast()))
    case (.exportFolder(let typed), .character(let character)):
      prompt = .exportFolder(typed + String(character))
    case (.albumName(let typed), .enter):
      prompt = nil
      addToAlbum(typed)
    case (.albumName(let typed), .backspace):
      prompt = .albumName(String(typed.dropLast()))
    case (.albumName(let typed), .character(let character)):
      prompt = .albumName(typed + String(character))
    default: break
    }
  }

  // MARK: Actions

  private func toggleSelection(of index: Int) {
    guard index < count, let photo = browser.photo(at: index) else { return }
    do {
      try browser.setSelected([index], !photo.isSelected)
      if browser.index(of: photo.record.id) == nil {
        message = "'\(TerminalSafeText.escaped(photo.record.name))' was deleted by another command"
      }
    } catch {
      report(error)
    }
  }

  private func delete(_ photo: PhotoModel) {
    do {
      try browser.delete([photo])
      message = "deleted '\(photo.record.name)'; \(count) left"
      if !page.afterDeletion(count: count) {
        screen = .grid
      }
      cursor.clamp(count: count)
    } catch {
      report(error)
    }
  }

  /// Puts the selected photos (those shown), or else the one under the cursor, in the album
  /// `typed` (made if there is none).
  private func addToAlbum(_ typed: String) {
    do {
      let name = try AlbumName.normalized(typed)
      var photos = browser.selectedPhotos().map(\.photo)
      if photos.isEmpty, let current = browser.photo(at: cursor.index) { photos = [current] }
      let addition = try browser.addToAlbum(name, photos)
      let already = photos.count - addition.added
      message =
        (addition.created ? "made album '\(addition.name)'; " : "")
        + "added \(vault.photos(addition.added)) to '\(addition.name)'"
        + (already > 0 ? " (\(already) in it already)" : "")
    } catch {
      report(error)
    }
  }

  private func export(to folder: String?) {
    guard let photo = browser.photo(at: page.index) else { return }
    do {
      let directory: String
      if let folder {
        let path = Self.absolutePath(folder)
        try ExportTarget.check(path)
        try ExportTarget.make(path)
        directory = path
      } else {
        directory = Self.absolutePath(try ExportTarget.makeDated())
      }
      var outcome = ""
      _ = PhotoExporter(browser: browser).export([photo], to: directory, thumbnails: false) { event in
        switch event {
        case .exported(_, let path): outcome = "exported \(path)"
        case .failed(let name, let error):
          if (try? space.ensureInPlace()) == nil { stoppedBy = VaultError.spaceMoved }
          outcome = "error: '\(name)' not exported: \(error.description)"
        }
      }
      message = outcome
    } catch {
      report(error)
    }
  }

  /// A folder typed at the export prompt, as a shell would take it: `~` is the home
  /// folder; a relative path is made absolute, so the message says where the file went.
  static func absolutePath(_ typed: String) -> String {
    var path = typed
    if path == "~" || path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
      path = home + path.dropFirst()
    }
    if path.hasPrefix("/") { return path }
    return FileManager.default.currentDirectoryPath + "/" + path
  }

  // MARK: Drawing

  private func redraw() {
    let size = terminal.size
    emit(drawing.beginFrame())
    emit(Array("\u{1B}[H\u{1B}[2J".utf8))
    drawnOriginal = nil
    followPhotos()
    var keep: Set<PictureKey> = []
    if showsHelp {
      emit(helpScreen(columns: size.columns, rows: size.rows))
    } else if count == 0 {
      emit(
        text(
          browser.emptyText + (browser.scopeDescription.isEmpty ? "; add some with 'vault add PATH'" : ""),
          row: 0))
    } else if screen == .grid {
      gridScreen(columns: size.columns, rows: size.rows)
    } else {
      photoScreen(columns: size.columns, rows: size.rows, keep: &keep)
    }
    emit(statusLine(columns: size.columns, row: size.rows - 1))
    // After the status line: the photo on screen is complete before megabytes of its
    // neighbours' pixels go to the terminal.
    if screen == .photo, !showsHelp, count > 0 { sendDecodedAhead(keep: &keep) }
    emit(drawing.endFrame(keep: keep))
    sendFrame()
  }

  /// Adds `bytes` to the frame. A picture (kitty's upload of a photo is megabytes of its
  /// pixels) is sent on its own, without being copied into a frame buffer that would be
  /// freed unwiped: what is waiting goes first, then the picture, each wiped once sent.
  private func emit(_ bytes: [UInt8]) {
    guard bytes.count >= Self.pictureBytes else {
      terminal.write(bytes)
      return
    }
    sendFrame()
    terminal.write(bytes)
    sendFrame()
  }

  private static let pictureBytes = 1 << 16

  /// Sends what is waiting. Before, kitty's cleanup on exit (even by a signal in the middle
  /// of an upload) names every image sent or being sent and every image about to be
  /// deleted; once sent, only what the terminal still holds.
  private func sendFrame() {
    if let kitty = drawing as? KittyPictureDrawing { terminal.graphicsCleanup = kitty.cleanup }
    terminal.flush()
    if let kitty = drawing as? KittyPictureDrawing {
      kitty.deletionsSent()
      terminal.graphicsCleanup = kitty.cleanup
    }
  }

  private func text(_ line: String, row: Int, column: Int = 0) -> [UInt8] {
    Array("\u{1B}[\(row + 1);\(column + 1)H".utf8) + Array(TerminalSafeText.escaped(line).utf8)
  }

  // MARK: Grid

  private var gridGeometry: (layout: GridLayout?, cellRows: Int, visibleRows: Int) {
    let size = terminal.size
    guard let layout = try? GridLayout(columns: size.columns, perRow: cursor.perRow) else {
      return (nil, 1, 1)
    }
    // Square cells, unless one would not fit on the screen (a short window, one photo a
    // row): then as tall as fits, cropped like any cell.
    let cellRows = max(
      1, min(layout.cellRows(characterWidth: cell.width, characterHeight: cell.height), size.rows - 3))
    // Each grid row: the pictures, a label line, a blank line; the status line at the bottom.
    let visibleRows = max(1, (size.rows - 1 + 1) / (cellRows + 2))
    return (layout, cellRows, visibleRows)
  }

  private func gridScreen(columns: Int, rows: Int) {
    let (layout, cellRows, visibleRows) = gridGeometry
    guard let layout else {
      return emit(
        text(
          "\(cursor.perRow) photos a row do not fit in \(columns) columns; widen the terminal", row: 0))
    }
    cursor.scrollToCursor(visibleRows: visibleRows)
    let visible = cursor.visibleIndexes(visibleRows: visibleRows, count: count)
    let photos = visible.map { (index: $0, photo: browser.photo(at: $0)!) }
    // Only the visible rows' thumbnails are decrypted (kitty keeps rows it was sent).
    let style = graphics.selectedLabelStyle
    for (rowNumber, row) in browser.rows(of: photos).enumerated() {
      let top = rowNumber * (cellRows + 2)
      guard top + cellRows < rows else { break }
      let key = PictureKey.gridRow(
        photos: row.map(\.photo.record.id), selected: row.map(\.photo.isSelected),
        width: layout.rowWidth * cell.width, height: cellRows * cell.height)
      emit(
        drawing.draw(
          key: key,
          source: PixelRect(x: 0, y: 0, width: layout.rowWidth * cell.width, height: cellRows * cell.height),
          column: layout.margin, row: top, columns: layout.rowWidth, rows: cellRows
        ) {
          .gridRow(
            browser.gridRowImage(
              row, layout: layout, cellRows: cellRows, characterWidth: cell.width,
              characterHeight: cell.height
            ) { index, error in
              self.report(error, as: "warning", reading: photos.first { $0.index == index }?.photo)
            })
        })
      for item in row {
        let position = item.index % cursor.perRow
        var label = DisplayWidth.pad(
          layout.label(number: item.index + 1, name: item.photo.record.name, selected: item.photo.isSelected),
          to: layout.cellWidth)
        if item.photo.isSelected { label = style.start + label + style.end }
        if item.index == cursor.index { label = "\u{1B}[7m" + label + "\u{1B}[27m" }
        emit(
          Array("\u{1B}[\(top + cellRows + 1);\(layout.cellStart(position) + 1)H".utf8) + Array(label.utf8))
      }
    }
  }

  // MARK: Photo

  /// Cells the photo may use: the screen but the status line, and the info panel's columns
  /// when it shows.
  private func photoArea(columns: Int, rows: Int) -> (columns: Int, rows: Int, panel: Int) {
    let panel = showsInfo && columns >= Self.infoPanelColumns ? min(36, columns / 3) : 0
    return (max(1, columns - panel), max(1, rows - 1), panel)
  }

  private func photoScreen(columns: Int, rows: Int, keep: inout Set<PictureKey>) {
    guard let photo = browser.photo(at: page.index) else { return }
    let record = photo.record
    let area = photoArea(columns: columns, rows: rows)
    let shown = PixelSize(width: record.width, height: record.height)
    if viewportPhoto != record.id || viewport == nil {
      viewport = Viewport(image: shown, columns: area.columns, rows: area.rows, cell: cell)
      viewportPhoto = record.id
    } else if let current = viewport,
      current.columns != area.columns || current.rows != area.rows
        || current.cell != cell
    {
      viewport?.resize(columns: area.columns, rows: area.rows, cell: cell)
    }
    guard let viewport else { return }
    requestOriginals(around: page.index, viewport: viewport)
    let placement = viewport.placement
    if let decoded = preloader.decoded(record.id) {
      browser.noteDetails(of: record, in: decoded)
      let size = PixelSize(width: decoded.image.width, height: decoded.image.height)
      if let fitted = fittedPicture(record.id, decoded, in: viewport) {
        emit(
          drawing.draw(
            key: fitted.key,
            source: PixelRect(x: 0, y: 0, width: fitted.size.width, height: fitted.size.height),
            column: placement.column, row: placement.row, columns: placement.columns, rows: placement.rows,
            picture: fitted.make))
      } else {
        emit(
          drawing.draw(
            key: .original(record.id, denominator: decoded.scaleDenominator),
            source: viewport.source(in: size),
            column: placement.column, row: placement.row, columns: placement.columns, rows: placement.rows
          ) { .photo(decoded.image) })
      }
      standIn = nil
      drawnOriginal = record.id
    } else if let failure = preloader.failure(record.id) {
      if case VaultError.spaceMoved = failure {
        stoppedBy = failure
      } else if readAgain(afterFailureOf: photo) {
        return
      }
      emit(text("\(failure)", row: area.rows / 2, column: 1))
    } else if let image = standInThumbnail(photo, atLeast: placement) {
      let size = PixelSize(width: image.width, height: image.height)
      emit(
        drawing.draw(
          key: .thumbnail(record.id), source: viewport.source(in: size), column: placement.column,
          row: placement.row, columns: placement.columns, rows: placement.rows
        ) { .photo(image) })
    }
    if area.panel > 0 {
      emit(infoPanel(photo, column: area.columns + 1, width: area.panel - 1, rows: area.rows))
    }
  }

  /// What kitty is sent ahead, and keeps, so that paging to a neighbour or back, and the
  /// first zoom step, cost a placement: the neighbours as they show when fitted, and the
  /// current photo's whole original when it shows fitted. Only once the current photo's
  /// original is on screen, and left for a later frame when a key is waiting: megabytes of
  /// pixels would hold up what the user waits for.
  private func sendDecodedAhead(keep: inout Set<PictureKey>) {
    guard drawing is KittyPictureDrawing, !terminal.hasPendingInput, let viewport,
      let current = browser.photo(at: page.index), drawnOriginal == current.record.id
    else { return }
    var ahead: [(key: PictureKey, make: () -> Picture)] = []
    if let decoded = preloader.decoded(current.record.id),
      fittedPicture(current.record.id, decoded, in: viewport) != nil
    {
      ahead.append(
        (.original(current.record.id, denominator: decoded.scaleDenominator), { .photo(decoded.image) }))
    }
    for position in [page.index + 1, page.index - 1] where position >= 0 && position < count {
      guard let photo = browser.photo(at: position), let decoded = preloader.decoded(photo.record.id)
      else {
        continue
      }
      if let fitted = fittedPicture(photo.record.id, decoded, in: fitViewport(photo, like: viewport)) {
        ahead.append((fitted.key, fitted.make))
      } else {
        ahead.append(
          (.original(photo.record.id, denominator: decoded.scaleDenominator), { .photo(decoded.image) }))
      }
    }
    for (key, make) in ahead {
      keep.insert(key)
      emit(drawing.preload(key: key, picture: make))
    }
  }

  /// Kitty, a photo fitted to the screen whole: the decoded original shrunk to the pixels of
  /// the cells it fills, which is all the screen shows of it. A 12-megapixel photo is
  /// decoded at 2000×1500 for a 1600×960 screen; sending what shows is a third of the
  /// bytes, and the first photo is on screen that much sooner. Nil when the photo is zoomed
  /// or shows in part (a tall one), or when shrinking would not save much.
  private func fittedPicture(_ id: BlobID, _ decoded: DecodedPhoto, in view: Viewport) -> (
    key: PictureKey, size: PixelSize, make: () -> Picture
  )? {
    guard drawing is KittyPictureDrawing, !view.isZoomed else { return nil }
    let image = decoded.image
    let whole = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
    guard view.source(in: PixelSize(width: image.width, height: image.height)) == whole else { return nil }
    let placement = view.placement
    let width = placement.columns * cell.width
    let height = placement.rows * cell.height
    guard width <= image.width, height <= image.height, width * height * 3 <= image.width * image.height * 2
    else { return nil }
    return (
      .fitted(id, denominator: decoded.scaleDenominator, width: width, height: height),
      PixelSize(width: width, height: height),
      { .shrunk(image.aspectFilled(width: width, height: height)) }
    )
  }

  /// The current photo's thumbnail, decoded once (as finely as the cells it fills need)
  /// while it stands in for the original.
  private func standInThumbnail(_ photo: PhotoModel, atLeast placement: Viewport.Placement) -> RGBImage? {
    if let standIn, standIn.id == photo.record.id { return standIn.image }
    let size = PixelSize(width: placement.columns * cell.width, height: placement.rows * cell.height)
    guard let image = try? browser.thumbnailImage(at: page.index, minimumSize: size) else { return nil }
    standIn = (photo.record.id, image)
    return image
  }

  /// How `photo` shows at fit in the area `viewport` has: a neighbour's view once paged to.
  private func fitViewport(_ photo: PhotoModel, like viewport: Viewport) -> Viewport {
    Viewport(
      image: PixelSize(width: photo.record.width, height: photo.record.height), columns: viewport.columns,
      rows: viewport.rows, cell: cell)
  }

  /// The current photo at the scale the zoom needs, then its neighbours at fit.
  private func requestOriginals(around index: Int, viewport: Viewport) {
    func request(_ position: Int, denominatorFor view: Viewport) -> OriginalPreloader.Request? {
      guard position >= 0, position < count, let photo = browser.photo(at: position) else { return nil }
      let record = photo.record
      let minimum = PixelSize(
        width: (record.width + view.neededScaleDenominator - 1) / view.neededScaleDenominator,
        height: (record.height + view.neededScaleDenominator - 1) / view.neededScaleDenominator)
      return OriginalPreloader.Request(record: record, minimumSize: minimum)
    }
    func fitView(_ position: Int) -> Viewport? {
      guard position >= 0, position < count, let photo = browser.photo(at: position) else { return nil }
      return fitViewport(photo, like: viewport)
    }
    var requests: [OriginalPreloader.Request] = []
    if let current = request(index, denominatorFor: viewport) { requests.append(current) }
    for neighbour in [index + 1, index - 1] {
      if let view = fitView(neighbour), let next = request(neighbour, denominatorFor: view) {
        requests.append(next)
      }
    }
    preloader.want(requests)
  }

  private func infoPanel(_ photo: PhotoModel, column: Int, width: Int, rows: Int) -> [UInt8] {
    let record = browser.withFoundDetails(photo.record)
    var lines: [String] = ["name", "  " + record.name, ""]
    // A photo imported before vault read dates has its file read once its original decodes.
    let unread = browser.detailsAreKnown(record) == false && browser.foundDetails[record.id] == nil
    lines += ["taken", "  " + (record.taken?.shownInFull ?? (unread ? "not read yet" : "unknown")), ""]
    if let camera = PhotoListing.camera(record) { lines += ["camera", "  " + camera, ""] }
    lines += ["file size", "  " + PhotoListing.byteCount(record.bytes), ""]
    lines += ["pixels", "  \(record.width)×\(record.height)", ""]
    lines += ["format", "  " + record.format.rawValue.uppercased(), ""]
    lines += ["imported", "  " + PhotoListing.date(record.importedAt), ""]
    lines += ["file modified", "  " + PhotoListing.date(record.modifiedAt)]
    if photo.isSelected { lines += ["", "✔ selected"] }
    var bytes: [UInt8] = []
    // The status line stays clear.
    for (row, line) in lines.prefix(rows).enumerated() {
      bytes += text(
        DisplayWidth.truncate(TerminalSafeText.escaped(line), to: width), row: row, column: column)
    }
    return bytes
  }

  // MARK: Status and help

  private func statusLine(columns: Int, row: Int) -> [UInt8] {
    var line: String
    if let prompt {
      switch prompt {
      case .goToNumber(let typed): line = "go to photo number (1-\(count)), Enter: " + typed
      case .confirmDeletion(let photo):
        line = "Delete '\(TerminalSafeText.escaped(photo.record.name))'? This cannot be undone. [y/N]"
      case .exportFolder(let typed):
        line = "export to folder (Enter: a new vault-export-<date>): " + TerminalSafeText.escaped(typed)
      case .albumName(let typed):
        let what = browser.selectedPhotos().count
        line =
          "add \(what == 0 ? "this photo" : what == 1 ? "1 selected photo" : "\(what) selected photos") to album (Esc: cancel): "
          + TerminalSafeText.escaped(typed)
      }
    } else if count == 0 || showsHelp {
      line = showsHelp ? "any key: back" : "q: quit"
    } else if screen == .grid {
      let selected = (0..<count).filter { browser.photo(at: $0)!.isSelected }.count
      // An action's outcome (below) takes the place of the keys' reminder, back at the next key.
      line =
        "\(cursor.index + 1) / \(count)  \(selected) selected"
        + (message == nil ? "  Enter: open  space: select  ?: keys  q: quit" : "")
    } else {
      let photo = browser.photo(at: page.index)!
      var after = "  \(photo.record.width)×\(photo.record.height)"
      if let taken = browser.withFoundDetails(photo.record).taken { after += "  " + taken.shownDate }
      after += "  \(viewport?.zoomPercent ?? 100)%"
      if photo.isSelected { after += "  ✔" }
      // As drawn: an original decoded while this frame was drawn shows in the next one.
      if drawnOriginal != photo.record.id && preloader.failure(photo.record.id) == nil {
        after += "  loading…"
      }
      let before = "\(page.index + 1) / \(count)  "
      // A long name is cut, not what follows it: the mark and the zoom must show.
      let room = max(8, columns - DisplayWidth.of(before) - DisplayWidth.of(after))
      line = before + DisplayWidth.truncate(TerminalSafeText.escaped(photo.record.name), to: room) + after
    }
    if prompt != nil {
      // Why an answer was not taken yet, after it.
      if let message { line += "  — " + TerminalSafeText.escaped(message) }
      // What is being typed, and the [y/N], are at the end: a narrow line keeps the end.
      while DisplayWidth.of(line) >= columns, line.count > 1 { line.removeFirst() }
    }
    // An action's outcome follows the status, until the next key.
    if prompt == nil, let message { line += "  — " + TerminalSafeText.escaped(message) }
    return Array("\u{1B}[\(row + 1);1H\u{1B}[2K\u{1B}[7m".utf8)
      + Array(DisplayWidth.pad(DisplayWidth.truncate(line, to: columns), to: columns).utf8)
      + Array("\u{1B}[27m".utf8)
  }

  static let helpLines = [
    "vault view: keys",
    "",
    "Grid",
    "  arrows, h j k l     move",
    "  PgUp PgDn           a screen up or down",
    "  Home End, g G       first, last photo",
    "  space, s            select or unselect",
    "  a NAME Enter        add the selected photos (or this one) to album NAME",
    "  Enter               open the photo",
    "",
    "Photo",
    "  n p, → ←, space     next, previous photo (→ ← pan when zoomed)",
    "  Home End            first, last photo",
    "  g NUMBER Enter      go to photo NUMBER",
    "  + -                 zoom in, out",
    "  z                   fit / actual pixels (1:1; a small photo: 4× fit)",
    "  PgUp PgDn           a screen up, down (zoomed or tall), else page",
    "  arrows, h j k l     pan when zoomed (↑ ↓ also scroll a tall photo)",
    "  s                   select or unselect",
    "  d                   delete (asks first)",
    "  e                   export the original to a folder",
    "  i                   details",
    "  Esc                 back to the grid",
    "",
    "  ?                   these keys      q   quit",
  ]

  private func helpScreen(columns: Int, rows: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    for (row, line) in Self.helpLines.enumerated() where row < rows - 1 {
      bytes += text(DisplayWidth.truncate(line, to: columns - 2), row: row, column: 1)
    }
    return bytes
  }
}
