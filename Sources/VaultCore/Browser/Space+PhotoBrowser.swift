extension Space {
  /// A browser whose data source is this space: the count and the photos are read live
  /// from the space's entries, thumbnails and originals are decrypted from its blobs (in
  /// memory), and selections and deletions are written to its journal. The browser keeps
  /// the space open as long as it lives.
  ///
  /// `reloadRequest` is left to the owner: the space brings its entries up to date with
  /// every write it makes, so there is nothing to re-read; an owner that shows the photos
  /// sets it to redraw them.
  public func makeBrowser(perRow: Int = 1) -> PhotoBrowser {
    let browser = PhotoBrowser(numberOfPhotosPerRow: perRow)
    browser.numberOfPhotos = { self.entries.count }
    browser.photoAtIndex = { self.model(at: $0) }
    browser.thumbnailAtIndex = { try self.thumbnail(of: self.entries[$0].record) }
    browser.originalAtIndex = { try self.original(of: self.entries[$0].record) }
    browser.selectionRequest = { changes in try self.setSelections(changes.map { ($0.index, $0.selected) }) }
    browser.deletionRequest = { photos in try self.deletePhotos(ids: Set(photos.map(\.record.id))) }
    return browser
  }
}
