/// Agony's SGPhotoBrowser without the screen: it never owns the photos. Its owner hands it
/// three closures (how many photos, the photo at an index, and a request to reload), and
/// it lays them out in rows and runs batch actions over the selected ones.
public final class PhotoBrowser {
  /// The number of photos; required.
  public var numberOfPhotos: (() -> Int)?
  /// The photo at a 0-based index; required.
  public var photoAtIndex: ((Int) -> PhotoModel)?
  /// Asks the owner to re-read its photos (after a batch delete, say).
  public var reloadRequest: (() -> Void)?
  /// How many photos a grid row holds.
  public var numberOfPhotosPerRow: Int

  public init(numberOfPhotosPerRow: Int = 4) {
    self.numberOfPhotosPerRow = numberOfPhotosPerRow
  }

  /// Whether both required closures are set; until then the browser shows nothing.
  public var isReady: Bool { numberOfPhotos != nil && photoAtIndex != nil }

  /// The photo count, read from the data source every time, so it cannot go stale.
  public var count: Int { isReady ? numberOfPhotos?() ?? 0 : 0 }

  /// The photos row by row, `numberOfPhotosPerRow` a row, each with its 0-based index.
  public func rows() -> [[(index: Int, photo: PhotoModel)]] {
    guard let photoAtIndex, numberOfPhotosPerRow > 0 else { return [] }
    return stride(from: 0, to: count, by: numberOfPhotosPerRow).map { start in
      (start..<min(start + numberOfPhotosPerRow, count)).map { ($0, photoAtIndex($0)) }
    }
  }

  /// The selected photos, in order, with their 0-based indexes.
  public func selectedPhotos() -> [(index: Int, photo: PhotoModel)] {
    guard let photoAtIndex else { return [] }
    return (0..<count).map { ($0, photoAtIndex($0)) }.filter { $0.1.isSelected }
  }

  /// The photos `choice` names, in order, with their 0-based indexes. `action` words the
  /// error when nothing is chosen ("deleting", "exporting").
  public func photos(chosenBy choice: PhotoChoice, action: String) throws -> [(index: Int, photo: PhotoModel)]
  {
    guard let photoAtIndex else { return [] }
    switch choice {
    case .selected:
      let selected = selectedPhotos()
      if selected.isEmpty { throw VaultError.nothingSelected(action: action) }
      return selected
    case .all:
      if count == 0 { throw VaultError.emptySpace(action: action) }
      return (0..<count).map { ($0, photoAtIndex($0)) }
    case .photos(let terms):
      let photos = (0..<count).map { photoAtIndex($0) }
      return try PhotoSelector.positions(terms, count: photos.count) { photos[$0].record.id.hex }.map {
        ($0, photos[$0])
      }
    }
  }

  /// Deletes `photos` through `delete`, then asks the owner to reload; the count read
  /// after this is the data source's new one.
  public func delete(_ photos: [PhotoModel], using delete: ([PhotoModel]) throws -> Void) throws {
    try delete(photos)
    reloadRequest?()
  }

  /// Deletes every selected photo through `delete`, then asks the owner to reload.
  /// Throws `.nothingSelected` when no photo is selected.
  public func deleteSelected(using delete: ([PhotoModel]) throws -> Void) throws {
    try self.delete(photos(chosenBy: .selected, action: "deleting").map(\.photo), using: delete)
  }
}
