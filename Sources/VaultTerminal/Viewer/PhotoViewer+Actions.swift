import Foundation
import VaultCore

/// What the viewer's keys change: selection, deletion, albums and export, through the browser.
extension PhotoViewer {
  func toggleSelection(of index: Int) {
    guard index < count, let photo = browser.photo(at: index) else { return }
    do {
      try browser.setSelected([index], !photo.isSelected)
      if browser.index(of: photo.record.id) == nil {
        message =
          "'\(TerminalSafeText.escaped(browser.shownNames.of(photo.record)))' was deleted by another command"
      }
    } catch {
      report(error)
    }
  }

  func delete(_ photos: [PhotoModel]) {
    do {
      // Named before the deletion, as the photos showed.
      let names = browser.shownNames(of: photos)
      try browser.delete(photos)
      let what =
        photos.count == 1
        ? "'\(TerminalSafeText.escaped(names.of(photos[0].record)))'" : VaultTerminal.photos(photos.count)
      message = "moved \(what) to Recently Deleted; \(count) left"
      if screen == .photo, !page.afterDeletion(count: count) {
        screen = .grid
      }
      cursor.clamp(count: count)
    } catch {
      report(error)
    }
  }

  /// Puts the selected photos (those shown), or else the one under the cursor, in the album
  /// `typed` (made if there is none).
  func addToAlbum(_ typed: String) {
    do {
      let name = try AlbumName.normalized(typed)
      var photos = browser.selectedPhotos().map(\.photo)
      if photos.isEmpty, let current = browser.photo(at: cursor.index) { photos = [current] }
      let addition = try browser.addToAlbum(name, photos)
      let already = photos.count - addition.added
      message =
        (addition.created ? "made album '\(addition.name)'; " : "")
        + "added \(VaultTerminal.photos(addition.added)) to '\(addition.name)'"
        + (already > 0 ? " (\(already) in it already)" : "")
    } catch {
      report(error)
    }
  }

  /// Exports the originals of `photos` to `folder` (a new dated folder when nil), and says
  /// where they went and which failed.
  func export(_ photos: [PhotoModel], to folder: String?) {
    guard !photos.isEmpty else { return }
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
      var (written, failures): ([String], [String]) = ([], [])
      var tally = ExportTally(photos, thumbnails: false)
      _ = PhotoExporter(browser: browser).export(photos, to: directory, thumbnails: false) { event in
        tally.note(event)
        switch event {
        case .exported(_, let path): written.append(path)
        case .failed(let name, let error):
          // A read of a space that moved says so (see `Space.readingInPlace`).
          if error == .spaceMoved { stoppedBy = VaultError.spaceMoved }
          failures.append("'\(name)' not exported: \(error.description)")
        }
      }
      message = Self.exportOutcome(
        written: written, items: tally.exported, failures: failures, of: photos.count, to: directory)
    } catch {
      report(error)
    }
  }

  /// "exported /x/a.jpg", "exported 3 photos to /x", "exported 1 Live Photo as 2 files to /x"
  /// (`items` as `list` counts them, of the `written` files), or "error: exported 2 photos of
  /// 3 items to /x; 'b.jpg' not exported: …" (the first failure named, with how many more).
  static func exportOutcome(
    written: [String], items: ItemCount, failures: [String], of total: Int, to directory: String
  ) -> String {
    if failures.isEmpty {
      return total == 1 && written.count == 1
        ? "exported \(written[0])" : "exported \(items.described(files: written.count, "as")) to \(directory)"
    }
    let more = failures.count > 1 ? " (and \(failures.count - 1) more failed)" : ""
    let done =
      total == 1 ? "" : "exported \(items.description) of \(total) items to \(directory); "
    return "error: " + done + failures[0] + more
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
}
