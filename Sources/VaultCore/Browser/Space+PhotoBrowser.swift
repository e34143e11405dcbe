import Foundation

extension Space {
  /// A browser whose data source is this space: the count and the photos are read live
  /// from the space's entries, thumbnails and originals are decrypted from its blobs (into
  /// memory to show, chunk by chunk to export), and selections, deletions and album
  /// changes are written to its journal. The browser keeps the space open as long as it
  /// lives.
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
  /// The data source's `reload` does nothing: the space brings its entries up to date
  /// with every write it makes, so there is nothing to re-read; an owner that shows the
  /// photos redraws after each change it asks for.
  public func makeBrowser(perRow: Int = 1, scope: PhotoScope = PhotoScope()) -> PhotoBrowser {
    // Made once: a model of every photo (a count, a selection) shares them.
    let folders = (photo: photoDirectory, thumb: thumbDirectory)
    let list = ScopedList(scope: scope)
    var source = PhotoDataSource(
      // Every photo, in whatever order, counts without sorting them.
      numberOfPhotos: {
        scope.filters || !self.livePairs().isEmpty || !self.duplicateImports().isEmpty
          ? list.positions(in: self).count : self.entries.count
      },
      photoAtIndex: { self.photoModel(at: list.positions(in: self)[$0], folders: folders) },
      reload: {},
      // Both read only the photo's blob and the key, never `entries`: safe off the main
      // thread (the viewer decodes ahead, an export decrypts on all cores).
      thumbnail: { try self.thumbnail(of: $0) },
      original: { record, content in
        try self.readingInPlace { try self.openOriginal(record).readContent(content) }
      },
      selectionRequest: { try self.select($0, listed: list.positions(in: self)) },
      // Exactly what the question named, by id: a Live Photo's two halves as it showed
      // them, never a half paired with one of them since (another add, an upload, a sync
      // while the question waited). Every import of each (`deletePhotos`) goes with it.
      deletionRequest: { photos in
        let ids = Set(photos.flatMap { [$0.record.id] + ($0.motion.map { [$0.id] } ?? []) })
        try self.writing { try $0.deletePhotos(ids: ids) }
      },
      albumAdditionRequest: { name, photos, creating in
        let ids = photos.map(\.record.id)
        return try self.writing { try $0.addToAlbum(named: name, photos: ids, creating: creating) }
      },
      albumRemovalRequest: { name, photos in
        let ids = photos.map(\.record.id)
        return try self.writing { try $0.removeFromAlbum(named: name, photos: ids) }
      },
      detailsRequest: { found in
        if self.access == .write {
          // Recorded with the command's own changes; a failure leaves them to be read again.
          _ = try? self.recordDetails(found)
        } else {
          self.recordDetailsIfFree(found)
        }
      })
    source.detailsAreKnown = { self.hasDetails($0.id) }
    source.originalRanges = { try self.originalRanges(of: $0) }
    source.listRevision = { self.revision }
    source.selectedIndexes = {
      let (positions, entries) = (list.positions(in: self), self.entries)
      return positions.indices.filter { entries.isSelected(at: positions[$0]) }
    }
    source.idAtIndex = { self.entries.id(at: list.positions(in: self)[$0]) }
    // A hidden import of a photo (see `DuplicateImports`) finds the photo it is one of.
    source.indexOfPhoto = { id in
      let id = self.duplicateImports().listed(id)
      return list.positions(in: self).firstIndex { self.entries.id(at: $0) == id }
    }
    return PhotoBrowser(dataSource: source, numberOfPhotosPerRow: perRow)
  }

  /// The photo at `position` (0-based, in import order) as a model, with its blobs'
  /// locations (in `folders`, by default this space's).
  func photoModel(at position: Int, folders: (photo: String, thumb: String)? = nil) -> PhotoModel {
    let entry = entries[position]
    let folders = folders ?? (photoDirectory, thumbDirectory)
    var model = PhotoModel(
      record: entry.record, photoFolder: folders.photo, thumbFolder: folders.thumb,
      isSelected: entry.selected,
      albums: albumNames(of: entry.record.id))
    model.motion = liveMotion(of: entry.record.id)
    return model
  }

  /// `change` made by this space when it is a writer, else by a short-lived writer of its
  /// own (a reader that stays open, `vault view`, holds no lock between changes).
  func writing<Result>(_ change: (Space) throws -> Result) throws -> Result {
    if access == .write { return try change(self) }
    return try self.change(change)
  }

  /// Sets the selection of the listed photos at the changes' indexes; `listed` holds their
  /// positions in `entries`.
  private func select(_ changes: [(index: Int, selected: Bool)], listed positions: [Int]) throws {
    if access == .write {
      try setSelections(changes.map { (positions[$0.index], $0.selected) })
      return
    }
    // A reader (`vault view`) changes through a writer of its own, whose photos may have
    // moved (another command changed the space meanwhile): they are found by id.
    let wanted = changes.map { (id: entries.id(at: positions[$0.index]), selected: $0.selected) }
    try change { writer in
      var positions: [BlobID: Int] = [:]
      for (position, entry) in writer.entries.enumerated() { positions[entry.record.id] = position }
      try writer.setSelections(
        wanted.compactMap { change in positions[change.id].map { ($0, change.selected) } })
    }
  }
}

/// The positions in a space's entries of the photos a scope takes, in its order. The last
/// list is kept with the revision it is of: a browser asks for it at every photo it reads
/// (finding the space's shared list compared scopes, 100,000 times in a count of the
/// selection).
private final class ScopedList {
  let scope: PhotoScope
  private var kept: (revision: Int, positions: [Int])?

  init(scope: PhotoScope) {
    self.scope = scope
  }

  func positions(in space: Space) -> [Int] {
    if let kept, kept.revision == space.orderRevision { return kept.positions }
    let positions = space.scopedPositions(scope)
    kept = (space.orderRevision, positions)
    return positions
  }
}

extension Space {
  /// The positions in `entries` of the photos `scope` takes, in its order: sorted once per
  /// `orderRevision` and shared by every browser of the same scope, so that a command that
  /// makes several (`select` counts the whole space's selection before and after its
  /// change) sorts a big space once, and a change of selection sorts nothing again.
  func scopedPositions(_ scope: PhotoScope) -> [Int] {
    if let kept = scopedLists.first(where: { $0.scope == scope && $0.revision == orderRevision }) {
      return kept.positions
    }
    let members = scope.album.flatMap { album(named: $0)?.photoIDs } ?? []
    let positions = withoutLiveMotions(
      withoutHiddenImports(scope.positions(of: entries, members: members, zone: .current)))
    scopedLists.removeAll { $0.scope == scope || $0.revision != orderRevision }
    scopedLists.append((scope, orderRevision, positions))
    return positions
  }
}
