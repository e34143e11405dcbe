import Foundation
import VaultCore

/// The viewer's keys: on the grid, on a photo, and in answer to its prompts.
extension PhotoViewer {
  /// Finds the photos of the cursor and the page again after the list changed; a photo
  /// that is no longer listed leaves its place to the one that took its number.
  func followPhotos() {
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

  func handle(_ key: Key) {
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
    if screen == .photo, let playback, playback.isVideo {
      handlePlaying(key, playback)
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

  func handleGrid(_ key: Key) {
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
    case .character("d"):
      let chosen = gridChoice()
      ask(.confirmDeletion(DeletionText(photos: chosen, names: browser.shownNames(of: chosen.map(\.photo)))))
    case .character("e"): ask(.exportFolder("", photos: gridChoice()))
    case .enter:
      page = PagePosition(index: cursor.index)
      screen = .photo
    default: break
    }
    cursor.scrollToCursor(visibleRows: visibleRows)
  }

  func handlePhoto(_ key: Key) {
    let zoomed = viewport?.isZoomed ?? false
    let tall = viewport?.isTall ?? false
    if key == .enter || key == .character(" "), playVideo(at: page.index, by: key) { return }
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
    case .character("d"):
      ask(
        .confirmDeletion(
          DeletionText(
            photos: [(page.index, browser.photo(at: page.index)!)],
            names: browser.shownNames(of: [browser.photo(at: page.index)!]))))
    case .character("e"): ask(.exportFolder("", photos: [(page.index, browser.photo(at: page.index)!)]))
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

  /// What the grid's `d`, `e` and `a` act on: the selected photos shown, else the one under
  /// the cursor.
  func gridChoice() -> [(index: Int, photo: PhotoModel)] {
    let selected = browser.selectedPhotos()
    if !selected.isEmpty { return selected }
    return browser.photo(at: cursor.index).map { [(cursor.index, $0)] } ?? []
  }

  /// How many photos' details (read from originals decoded for showing, for photos
  /// imported before vault read them) are kept before they are stored, in one change.
  static let detailsBatch = 32

  /// Asks `question` on the status line. Before a deletion, keys typed before it was asked
  /// (type-ahead) are dropped, so that only a key pressed after the question answers it.
  func ask(_ question: Prompt) {
    if case .confirmDeletion = question { terminal.discardPendingInput() }
    prompt = question
  }

  /// Said when an Enter came with other input (a paste that ends in a new line): only one
  /// pressed on its own answers a question that writes photos out.
  static let pressEnterToConfirm = "press Enter to confirm"

  /// The longest answer a prompt takes: a path, an album name (a paste of a book is cut,
  /// rather than trimmed again at every frame).
  static let answerLimit = 4096

  func answer(_ current: Prompt, _ key: Key) {
    defer { limitAnswer() }
    switch (current, key) {
    case (.goToNumber(let typed), .paste(let text)):
      prompt = .goToNumber(typed + text.filter { $0.isASCII && $0.isNumber })
    case (.exportFolder(let typed, let photos), .paste(let text)):
      prompt = .exportFolder(typed + text, photos: photos)
    case (.albumName(let typed), .paste(let text)):
      prompt = .albumName(typed + text)
    case (_, .paste):
      // A paste never answers a yes/no question.
      break
    case (_, .escape):
      prompt = nil
    case (.confirmDeletion(let doomed), _):
      prompt = nil
      confirmDeletion(of: doomed.photos.map(\.photo), key)
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
    case (.exportFolder(let typed, let photos), .enter):
      // Only an Enter typed on its own writes photos out of the vault: one in a burst of
      // input (the rest of a paste) leaves the question open, and says so: ignored silently,
      // it looked as if the viewer had not heard it.
      guard terminal.lastKeyWasTyped else {
        message = Self.pressEnterToConfirm
        break
      }
      prompt = nil
      export(photos.map(\.photo), to: typed.isEmpty ? nil : typed)
    case (.exportFolder(let typed, let photos), .backspace):
      prompt = .exportFolder(String(typed.dropLast()), photos: photos)
    case (.exportFolder(let typed, let photos), .character(let character)):
      prompt = .exportFolder(typed + String(character), photos: photos)
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

  /// Cuts an answer that grew past what its prompt takes.
  func limitAnswer() {
    switch prompt {
    case .exportFolder(let typed, let photos) where typed.count > Self.answerLimit:
      prompt = .exportFolder(String(typed.prefix(Self.answerLimit)), photos: photos)
    case .albumName(let typed) where typed.count > Self.answerLimit:
      prompt = .albumName(String(typed.prefix(Self.answerLimit)))
    case .goToNumber(let typed) where typed.count > 18:
      prompt = .goToNumber(String(typed.prefix(18)))
    default: break
    }
  }

  /// Deletes `photos` when `key` is a y typed on its own.
  func confirmDeletion(of photos: [PhotoModel], _ key: Key) {
    guard key == .character("y") || key == .character("Y") else {
      message = "nothing deleted"
      return
    }
    // Only a y typed on its own: one that came in a burst of input was sent, not typed.
    if terminal.lastKeyWasTyped {
      delete(photos)
    } else {
      message = "nothing deleted: the y came with other input; press d, then y on its own"
    }
  }
}
