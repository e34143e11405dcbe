/// What a catalog derives of Recently Deleted (see `CatalogTables`): which photos are in it,
/// since when, and its items (a Live Photo's two halves as one, a photo imported on several
/// copies as its listed import), most recently deleted first, then in list order.
struct TrashTables: Sendable {
  /// When each photo in the trash was moved there (nanoseconds since 1970).
  let deletedAt: [BlobID: Int64]
  /// The Live Photos among the photos in the trash.
  let pairs: LivePairs
  /// The positions in the catalog's entries of the items, in the trash's order.
  let items: [Int]
  /// The position in the catalog's entries of every photo in the trash (an item's other
  /// files are found here).
  let positions: [BlobID: Int]
  let retention: TrashRetention

  init(
    entries: PhotoEntries, trashed: [BlobID: Int64], imports: DuplicateImports, pairs: LivePairs,
    retention: TrashRetention
  ) {
    deletedAt = trashed
    self.pairs = pairs
    self.retention = retention
    guard !trashed.isEmpty else {
      (items, positions) = ([], [:])
      return
    }
    var items: [(position: Int, deletedAt: Int64)] = []
    var positions: [BlobID: Int] = [:]
    for (position, id) in entries.photoIDs.enumerated() {
      guard let stamp = trashed[id] else { continue }
      positions[id] = position
      if imports.keptImport[id] == nil && pairs.stillOfMotion[id] == nil { items.append((position, stamp)) }
    }
    self.positions = positions
    // Sorted is stable: equal times stay in list order.
    self.items = items.sorted { $0.deletedAt > $1.deletedAt }.map(\.position)
  }

  /// Whether the photo `id` (a listed import) is in the trash.
  func holds(_ id: BlobID) -> Bool {
    deletedAt.isEmpty ? false : deletedAt[id] != nil
  }
}
