/// A space's photos imported more than once, on copies changed apart (see
/// `DuplicateImports`): each is one item, listed and numbered as its earliest import.
extension Space {
  /// The imports of one photo, derived again when the list changes.
  func duplicateImports() -> DuplicateImports {
    if let cached = duplicateImportCache, cached.revision == orderRevision { return cached.imports }
    let imports = DuplicateImports(entries)
    duplicateImportCache = (orderRevision, imports)
    return imports
  }

  /// `positions` (in `entries`) without the hidden imports, so that a photo imported on
  /// several copies takes one number in every list.
  func withoutHiddenImports(_ positions: [Int]) -> [Int] {
    let imports = duplicateImports()
    guard !imports.isEmpty else { return positions }
    return positions.filter { imports.keptImport[entries.id(at: $0)] == nil }
  }

  /// The hidden imports of the listed photo `id` (none for most photos).
  public func otherImports(of id: BlobID) -> [PhotoRecord] {
    guard let others = duplicateImports().otherImports[id], let state = journal?.state else { return [] }
    return others.compactMap { state.photo($0)?.record }
  }

  /// `ids` with every other import of the photos they name.
  func withEveryImport<IDs: Sequence>(_ ids: IDs) -> Set<BlobID> where IDs.Element == BlobID {
    let imports = duplicateImports()
    guard !imports.isEmpty else { return Set(ids) }
    return Set(ids.lazy.flatMap { imports.all(of: $0) })
  }

  /// Every import of the photo `id` is an import of, the listed one first: one id for a
  /// photo imported once.
  public func imports(of id: BlobID) -> [BlobID] {
    duplicateImports().all(of: id)
  }
}
