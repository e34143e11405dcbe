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

  private var cachedCount = 0

  public init(numberOfPhotosPerRow: Int = 4) {
    self.numberOfPhotosPerRow = numberOfPhotosPerRow
  }

  /// Whether both required closures are set; until then the browser shows nothing.
  public var isReady: Bool { numberOfPhotos != nil && photoAtIndex != nil }

  /// Re-reads the count from the data source.
  public func reloadData() {
    cachedCount = numberOfPhotos?() ?? 0
  }

  /// The photo count as of the last `reloadData()`.
  public var count: Int { isReady ? cachedCount : 0 }

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

  /// Deletes every selected photo through `delete`, then asks the owner to reload and
  /// re-reads the count. Throws `.nothingSelected` when no photo is selected.
  public func deleteSelected(using delete: ([PhotoModel]) throws -> Void) throws {
    let selected = selectedPhotos().map(\.photo)
    guard !selected.isEmpty else { throw VaultError.nothingSelected(action: "deleting") }
    try delete(selected)
    reloadRequest?()
    reloadData()
  }

  /// Hands every selected photo to `export`, in order. Throws `.nothingSelected` when no
  /// photo is selected.
  public func exportSelected<Result>(using export: ([PhotoModel]) throws -> Result) throws -> Result {
    let selected = selectedPhotos().map(\.photo)
    guard !selected.isEmpty else { throw VaultError.nothingSelected(action: "exporting") }
    return try export(selected)
  }
}
