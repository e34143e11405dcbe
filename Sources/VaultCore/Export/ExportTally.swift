/// The items an export wrote, counted as `list` counts them (`ItemCount`): an export reports
/// each file in order (a Live Photo's still, then its MOV), and an item is exported when
/// every file of it was.
public struct ExportTally {
  private let photos: [PhotoModel]
  /// The item each file of the export belongs to, in the order the files are reported.
  private let itemOfFile: [Int]
  private var reported = 0
  private var failedItems = Set<Int>()
  /// The files exported.
  public private(set) var files = 0

  /// For an export of `photos` (their thumbnails alone with `thumbnails`: one file each).
  public init(_ photos: [PhotoModel], thumbnails: Bool) {
    self.photos = photos
    itemOfFile = photos.indices.flatMap { index in
      thumbnails || photos[index].motion == nil ? [index] : [index, index]
    }
  }

  /// Counts the next file's outcome.
  public mutating func note(_ event: ExportEvent) {
    guard reported < itemOfFile.count else { return }
    switch event {
    case .exported: files += 1
    case .failed: failedItems.insert(itemOfFile[reported])
    }
    reported += 1
  }

  /// The items all of whose files were exported.
  public var exported: ItemCount {
    var count = ItemCount()
    let reachedItems = reported == 0 ? 0 : itemOfFile[reported - 1] + 1
    for index in 0..<reachedItems where !failedItems.contains(index) {
      // An item whose last file was not reported (an interrupted export) is not done.
      if index == reachedItems - 1, reported < itemOfFile.count, itemOfFile[reported] == index { continue }
      count.count(photos[index])
    }
    return count
  }
}
