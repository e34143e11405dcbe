/// What a space's browser reads: the catalog it holds until it reloads, and the items its
/// scope takes of it, in the scope's order (made when first asked for, and kept while the
/// catalog it holds has the same items: a change of selection sorts nothing again).
final class BrowsedCatalog {
  private(set) var catalog: SpaceCatalog
  let scope: PhotoScope
  private var scoped: ScopedItems?

  init(_ catalog: SpaceCatalog, scope: PhotoScope) {
    self.catalog = catalog
    self.scope = scope
  }

  /// Holds `newer` from now on.
  func reload(_ newer: SpaceCatalog) {
    if !newer.hasSameItems(as: catalog) { scoped = nil }
    catalog = newer
  }

  /// The positions in the catalog's `entries` of the items listed, in order.
  var positions: [Int] {
    if let scoped { return scoped.positions }
    let made = ScopedItems(catalog, scope: scope)
    scoped = made
    return made.positions
  }

  /// How many items are listed: every item, in whatever order, counts without sorting.
  var count: Int { scope.filters ? positions.count : catalog.count }

  /// The item listed at `index`.
  func item(at index: Int) -> PhotoModel { catalog.item(at: positions[index]) }

  /// The index of the item that `id` is a file of, if it is listed.
  func index(of id: BlobID) -> Int? {
    catalog.position(of: id).flatMap { position in positions.firstIndex(of: position) }
  }

  /// The indexes of the selected items, in order.
  var selectedIndexes: [Int] {
    let (positions, entries) = (positions, catalog.entries)
    return positions.indices.filter { entries.isSelected(at: positions[$0]) }
  }
}
