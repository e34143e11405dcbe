/// A space's photos imported more than once, on copies changed apart (see
/// `DuplicateImports`, derived in the catalog): each is one item, listed and numbered as its
/// earliest import.
extension Space {
  /// The imports of one photo.
  func duplicateImports() -> DuplicateImports { catalog.tables.imports }

  /// The hidden imports of the listed photo `id` (none for most photos).
  public func otherImports(of id: BlobID) -> [PhotoRecord] { catalog.otherImports(of: id) }

  /// `ids` with every other import of the photos they name.
  func withEveryImport<IDs: Sequence>(_ ids: IDs) -> Set<BlobID> where IDs.Element == BlobID {
    let imports = duplicateImports()
    guard !imports.isEmpty else { return Set(ids) }
    return Set(ids.lazy.flatMap { imports.all(of: $0) })
  }

  /// Every import of the photo `id` is an import of, the listed one first: one id for a
  /// photo imported once.
  public func imports(of id: BlobID) -> [BlobID] { catalog.imports(of: id) }
}
