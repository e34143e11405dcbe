// Keeping the names files show under (see `ShownNames`).
extension Space {
  /// The `shownName` entries that record, with `changes`, every name a file shows that the
  /// journal does not record (see `SpaceCatalog.unrecordedNames`): written once, at the
  /// first import, deletion, move to or from Recently Deleted after an older version's
  /// imports or a merge (the changes that could move a name), and then never again for
  /// those files. Recorded before the
  /// deletions in `changes` apply, so no name they free moves to another file.
  func namesKept(along changes: [JournalEntry], stamp: Int64) -> [JournalEntry] {
    var deleted = Set<BlobID>()
    var changesFiles = false
    for change in changes {
      switch change {
      case .deleted(let id):
        deleted.insert(id)
        changesFiles = true
      case .added, .trashed: changesFiles = true
      default: break
      }
    }
    guard changesFiles else { return [] }
    return catalog.unrecordedNames(leavingOut: deleted).sorted { $0.key < $1.key }.map { id, name in
      .shownName(id, name: name, stamp: stamp)
    }
  }
}
