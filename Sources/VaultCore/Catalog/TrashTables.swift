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
  let retention: TrashRetention

  init(
    entries: PhotoEntries, trashed: [BlobID: Int64], imports: DuplicateImports, pairs: LivePairs,
    retention: TrashRetention
  ) {
    deletedAt = trashed
    self.pairs = pairs
    self.retention = retention
    guard !trashed.isEmpty else {
      items = []
      return
    }
    var items: [(position: Int, deletedAt: Int64)] = []
    for (position, id) in entries.photoIDs.enumerated() {
      guard let stamp = trashed[id], imports.keptImport[id] == nil, pairs.stillOfMotion[id] == nil else {
        continue
      }
      items.append((position, stamp))
    }
    // Sorted is stable: equal times stay in list order.
    self.items = items.sorted { $0.deletedAt > $1.deletedAt }.map(\.position)
  }

  /// Whether the photo `id` (a listed import) is in the trash.
  func holds(_ id: BlobID) -> Bool {
    deletedAt.isEmpty ? false : deletedAt[id] != nil
  }
}
