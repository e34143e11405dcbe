/// The names recorded for files (`JournalEntry.shownName`), as the state applies them.
extension SpaceState {
  /// A `shownName` entry: the name `naming` recorded for the file `id`.
  mutating func applyShownName(_ naming: AlbumState.Naming, of id: BlobID) {
    lastStamp = max(lastStamp, naming.stamp)
    if !deleted.isEmpty && deleted.contains(id) { return }
    if let existing = recordedNames[id], !naming.supersedes(existing) { return }
    recordedNames[id] = naming
  }

  /// `shownName` entries read together (a snapshot's), applied as `applyShownName` applies
  /// each, with one lookup a name.
  mutating func applyShownNames(_ names: [(id: BlobID, naming: AlbumState.Naming)]) {
    for name in names { lastStamp = max(lastStamp, name.naming.stamp) }
    let deleted = self.deleted
    recordedNames.update(
      names.lazy.filter { deleted.isEmpty || !deleted.contains($0.id) }.map { ($0.id, $0.naming) }
    ) { new, existing in new.supersedes(existing) }
  }

  /// Makes room for the recorded names of `count` files at once.
  mutating func reserveCapacityForNames(_ count: Int) {
    recordedNames.reserveCapacity(count)
  }
}
