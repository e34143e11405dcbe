import Foundation
import VaultCore

/// What the viewer's keys change: selection, deletion, albums and export, through the browser.
extension PhotoViewer {
  func toggleSelection(of index: Int) {
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

  func delete(_ photo: PhotoModel) {
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

  func export(to folder: String?) {
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
}
