import Foundation

/// The items of a catalog that a scope takes, in its order: a pure function of the catalog,
/// the scope and the time zone. A browser keeps the one it made for the catalog it holds.
struct ScopedItems: Sendable {
  let scope: PhotoScope
  /// The positions in the catalog's `entries` of the items, in the scope's order.
  let positions: [Int]

  init(_ catalog: SpaceCatalog, scope: PhotoScope, zone: TimeZone = .current) {
    self.scope = scope
    let members = scope.album.flatMap { catalog.album(named: $0)?.photoIDs } ?? []
    positions = catalog.onlyItems(scope.positions(of: catalog.entries, members: members, zone: zone))
  }

}
