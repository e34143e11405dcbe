/// The item a skipped duplicate duplicates, as `list` shows it: its number in the list,
/// its name and its id, so that a summary can name it; or, for one in Recently Deleted, as
/// `vault trash` shows it.
public struct DuplicatedItem: Sendable, CustomStringConvertible {
  /// 1-based, as `list` numbers it now (as `vault trash` does, when `isInTrash`).
  public let number: Int
  public let name: String
  public let id: BlobID
  /// In Recently Deleted: an import of its content is skipped there too, and a user looking
  /// for it in `list` would not find it.
  public let isInTrash: Bool

  /// The item of `browser` (made with the default scope, as `list` is) that holds a file of
  /// this content, read from the space's catalog now, else the item of Recently Deleted that
  /// does; nil when the space holds none.
  public init?(contentHash: String, in space: Space, browser: PhotoBrowser) {
    browser.reloadData()
    // A photo in Recently Deleted still holds its content (an import of it is skipped), but
    // is not in the browser's list.
    guard let id = space.listedPhoto(withContentHash: contentHash), let index = browser.index(of: id),
      let item = browser.photo(at: index)
    else {
      guard let trashed = Self.trashed(contentHash, in: space.catalog) else { return nil }
      self = trashed
      return
    }
    // Named as `list` and an export name it (its shown name), not as it was imported.
    let name = browser.shownNames(of: [item]).of(item.record)
    self.init(number: index + 1, name: name, id: item.record.id, isInTrash: false)
  }

  private init(number: Int, name: String, id: BlobID, isInTrash: Bool) {
    (self.number, self.name, self.id, self.isInTrash) = (number, name, id, isInTrash)
  }

  /// The item of Recently Deleted with a file (either half, any import) of this content.
  private static func trashed(_ contentHash: String, in catalog: SpaceCatalog) -> DuplicatedItem? {
    for (offset, item) in catalog.trashItems.enumerated()
    where item.files.compactMap(catalog.trashedRecord).contains(where: { $0.contentHash == contentHash }) {
      let still = item.photo.record
      return DuplicatedItem(
        number: offset + 1, name: catalog.shownFileNames.of(still), id: still.id, isInTrash: true)
    }
    return nil
  }

  /// "12 'jolla.jpg' (id 0123abcd)", as `add` and `serve` name it; "1 'jolla.jpg' in Recently
  /// Deleted (id 0123abcd)".
  public var description: String {
    "\(number) '\(name)'\(isInTrash ? " in Recently Deleted" : "") (id \(id.hex.prefix(8)))"
  }
}
