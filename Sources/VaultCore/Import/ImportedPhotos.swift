/// The photos an import puts in an album (`vault add` into an album): those it added, and
/// those it found in the space already, kept as the import reports them.
public struct ImportedPhotos: Sendable {
  private var ids: [BlobID] = []
  /// The content hashes of the files found in the space already: the files themselves may
  /// be gone (moved into the space) by the time the album is filled.
  private var duplicates: [String] = []

  public init() {}

  /// Keeps the photo `event` added or found in the space.
  public mutating func note(_ event: ImportEvent) {
    switch event {
    case .added(_, let record): ids.append(record.id)
    case .duplicate(_, let contentHash): duplicates.append(contentHash)
    default: break
    }
  }

  /// Puts the photos in the album `name` (made if there is none) through `browser`, a
  /// browser of every photo of the space; returns what the addition did and how many were in
  /// the album already, or nil when there were none. A photo imported and then met again as
  /// a duplicate counts twice, once as in the album already: counted as before they go in.
  public func putInAlbum(_ name: String, through browser: PhotoBrowser) throws
    -> (addition: AlbumAddition, alreadyIn: Int)?
  {
    guard !ids.isEmpty || !duplicates.isEmpty else { return nil }
    let (added, wanted) = (Set(ids), Set(duplicates))
    let found = browser.listed(selectedOnly: false, from: nil, count: nil).map(\.photo).filter {
      added.contains($0.record.id) || wanted.contains($0.record.contentHash)
    }
    let count = ids.count + found.filter { wanted.contains($0.record.contentHash) }.count
    guard count > 0 else { return nil }
    let addition = try browser.addToAlbum(name, found)
    return (addition, count - addition.added)
  }
}
