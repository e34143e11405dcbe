import Foundation

extension Space {
  /// A browser whose data source is this space's catalog: the count and the photos are read
  /// from the catalog the browser holds, thumbnails and originals are decrypted from the
  /// space's blobs (into memory to show, chunk by chunk to export), and selections,
  /// deletions and album changes are written to its journal. The browser keeps the space
  /// open as long as it lives.
  ///
  /// The browser shows the items `scope` takes, in its order, numbered by their place in
  /// that list (by default every item, by date taken, then import order). An album the
  /// space does not have leaves the list empty: commands check it with the browser's
  /// `requireAlbum`.
  ///
  /// The data source's `reload` takes the space's current catalog: the browser reloads
  /// after every change it asks for, and an owner that reads the space again (`reload`)
  /// reloads the browser. A space opened to read changes through `Space.change` (a
  /// short-lived writer), so a reader that stays open (`vault view`) holds no lock between
  /// changes.
  public func makeBrowser(perRow: Int = 1, scope: PhotoScope = PhotoScope()) -> PhotoBrowser {
    let browsed = BrowsedCatalog(catalog, scope: scope)
    let blobs = blobs
    var source = PhotoDataSource(
      numberOfPhotos: { browsed.count },
      photoAtIndex: { browsed.item(at: $0) },
      reload: { browsed.reload(self.catalog) },
      // Both read only the photo's blob and the key, never the catalog: safe off the main
      // thread (the viewer decodes ahead, an export decrypts on all cores).
      thumbnail: { try blobs.thumbnail(of: $0) },
      original: { record, content in
        try blobs.readingInPlace { try blobs.openOriginal(record).readContent(content) }
      },
      selectionRequest: { try self.select($0, listed: browsed) },
      // Exactly what the question named, by id: a Live Photo's two halves as it showed
      // them, never a half paired with one of them since (another add, an upload, a sync
      // while the question waited). Every import of each (`trashPhotos`) goes with it.
      deletionRequest: { photos in
        let ids = Set(photos.flatMap(\.records).map(\.id))
        try self.writing { try $0.trashPhotos(ids: ids) }
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
    source.permanentDeletionRequest = { photos in
      let ids = Set(photos.flatMap(\.records).map(\.id))
      try self.writing { try $0.deletePhotos(ids: ids) }
    }
    source.trashedPhotos = { browsed.catalog.trashItems.map(\.photo) }
    source.detailsAreKnown = { self.hasDetails($0.id) }
    source.originalRanges = { try blobs.originalRanges(of: $0, recordCheckedAtEnd: $1) }
    source.readAgain = { waitLimit in try self.readAgain(waitingAtMost: waitLimit, into: browsed) }
    source.albumNamed = { browsed.catalog.album(named: $0) }
    source.albums = { browsed.catalog.albums }
    source.albumSummaries = { browsed.catalog.albumSummaries() }
    source.importsOfPhoto = { browsed.catalog.imports(of: $0) }
    source.shownNames = { browsed.catalog.shownNames() }
    source.shownNamesOfRecords = { browsed.catalog.shownNames(of: $0) }
    source.remoteOriginals = { blobs.remoteOriginals() }
    source.albumNamingRequest = { naming in try self.writing { try $0.changeAlbum(naming) } }
    source.listRevision = { browsed.catalog.version }
    source.selectedIndexes = { browsed.selectedIndexes }
    source.idAtIndex = { browsed.catalog.entries.id(at: browsed.positions[$0]) }
    // Any file of an item (a Live Photo's MOV, a hidden import) finds it.
    source.indexOfPhoto = { browsed.index(of: $0) }
    return PhotoBrowser(dataSource: source, numberOfPhotosPerRow: perRow)
  }

  /// `change` made by this space when it is a writer, else by a short-lived writer of its
  /// own (a reader that stays open, `vault view`, holds no lock between changes).
  func writing<Result>(_ change: (Space) throws -> Result) throws -> Result {
    if access == .write { return try change(self) }
    return try self.change(change)
  }

  /// Reads a space opened to read again (see `reload`), and has `browsed` hold its catalog;
  /// returns the index's damage instead when it no longer reads whole. A writer's catalog is
  /// always current: it is only taken.
  private func readAgain(waitingAtMost waitLimit: Double?, into browsed: BrowsedCatalog) throws -> VaultError?
  {
    if access == .read {
      try reload(waitingAtMost: waitLimit)
      if let indexDamage { return indexDamage }
    }
    browsed.reload(catalog)
    return nil
  }

  /// Sets the selection of the items the browser lists at the changes' indexes.
  private func select(_ changes: [(index: Int, selected: Bool)], listed browsed: BrowsedCatalog) throws {
    let positions = browsed.positions
    if access == .write && browsed.catalog.hasSameItems(as: catalog) {
      try setSelections(changes.map { (positions[$0.index], $0.selected) })
      return
    }
    // A reader (`vault view`) changes through a writer of its own, whose photos may have
    // moved (another command changed the space meanwhile), and a browser that holds an
    // older catalog numbers photos as they were: they are found by id.
    let entries = browsed.catalog.entries
    let wanted = changes.map { (id: entries.id(at: positions[$0.index]), selected: $0.selected) }
    try writing { writer in
      var positions: [BlobID: Int] = [:]
      for (position, id) in writer.entries.photoIDs.enumerated() { positions[id] = position }
      try writer.setSelections(
        wanted.compactMap { change in positions[change.id].map { ($0, change.selected) } })
    }
  }
}
