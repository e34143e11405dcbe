import Foundation

extension Space {
  /// A browser whose data source is this space: the count and the photos are read live
  /// from the space's entries, thumbnails and originals are decrypted from its blobs (in
  /// memory), and selections, deletions and album changes are written to its journal. The
  /// browser keeps the space open as long as it lives.
  ///
  /// The browser shows the photos `scope` takes, in its order, numbered by their place in
  /// that list (by default every photo, by date taken, then import order). The list is
  /// derived again whenever the space changes (see `revision`), so its count is never
  /// stale. An album the space does not have leaves the list empty: commands check it with
  /// `requireAlbum` first.
  ///
  /// A space opened to read changes through `Space.change` (a short-lived writer), so a
  /// reader that stays open (`vault view`) holds no lock between changes.
  ///
  /// `reloadRequest` is left to the owner: the space brings its entries up to date with
  /// every write it makes, so there is nothing to re-read; an owner that shows the photos
  /// sets it to redraw them.
  public func makeBrowser(perRow: Int = 1, scope: PhotoScope = PhotoScope()) -> PhotoBrowser {
    let browser = PhotoBrowser(numberOfPhotosPerRow: perRow)
    let list = ScopedList(scope: scope)
    browser.numberOfPhotos = { list.positions(in: self).count }
    browser.photoAtIndex = { self.model(at: list.positions(in: self)[$0]) }
    browser.indexOfPhoto = { id in list.positions(in: self).firstIndex { self.entries[$0].record.id == id } }
    browser.listRevision = { self.revision }
    browser.thumbnailAtIndex = { try self.thumbnail(of: self.entries[list.positions(in: self)[$0]].record) }
    browser.originalAtIndex = { try self.original(of: self.entries[list.positions(in: self)[$0]].record) }
    // Reads only the photo's blob and the key, never `entries`: safe off the main thread.
    browser.originalOfRecord = { try self.original(of: $0) }
    browser.selectionRequest = { changes in
      let positions = list.positions(in: self)
      if self.access == .write {
        try self.setSelections(changes.map { (positions[$0.index], $0.selected) })
        return
      }
      // A reader (`vault view`) changes through a writer of its own, whose photos may have
      // moved (another command changed the space meanwhile): they are found by id.
      let wanted = changes.map { (id: self.entries[positions[$0.index]].record.id, selected: $0.selected) }
      try self.change { writer in
        var positions: [BlobID: Int] = [:]
        for (position, entry) in writer.entries.enumerated() { positions[entry.record.id] = position }
        try writer.setSelections(
          wanted.compactMap { change in positions[change.id].map { ($0, change.selected) } })
      }
    }
    browser.detailsAreKnown = { self.hasDetails($0.id) }
    browser.detailsRequest = { found in
      if self.access == .write {
        // Recorded with the command's own changes; a failure leaves them to be read again.
        _ = try? self.recordDetails(found)
      } else {
        self.recordDetailsIfFree(found)
      }
    }
    browser.deletionRequest = { photos in
      let ids = Set(photos.map(\.record.id))
      if self.access == .write {
        try self.deletePhotos(ids: ids)
      } else {
        try self.change { writer in try writer.deletePhotos(ids: ids) }
      }
    }
    browser.albumRequest = { name, photos in
      let ids = photos.map(\.record.id)
      if self.access == .write { return try self.addToAlbum(named: name, photos: ids, creating: true) }
      return try self.change { writer in try writer.addToAlbum(named: name, photos: ids, creating: true) }
    }
    return browser
  }
}

/// The positions in a space's entries of the photos a scope takes, in its order, derived
/// again when the space's revision changes.
private final class ScopedList {
  let scope: PhotoScope
  private var derived: (revision: Int, positions: [Int])?

  init(scope: PhotoScope) { self.scope = scope }

  func positions(in space: Space) -> [Int] {
    if let derived, derived.revision == space.revision { return derived.positions }
    let members = scope.album.flatMap { space.album(named: $0)?.photoIDs } ?? []
    let positions = scope.positions(of: space.entries, members: members, zone: .current)
    derived = (space.revision, positions)
    return positions
  }
}
