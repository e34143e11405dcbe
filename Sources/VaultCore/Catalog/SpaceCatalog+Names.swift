/// The names the files of a catalog show under (`ShownNames`), and those a new import takes.
extension SpaceCatalog {
  /// The name of every listed file (stills, MOVs, videos; not the hidden imports of a photo
  /// imported on several copies, which show as the one they are imports of), and of every
  /// file in Recently Deleted, which holds its name until it is deleted for good.
  public func shownNames() -> [BlobID: String] {
    tables.shownNames(of: entries).names
  }

  /// The names `records`, imported now, take: each its own name made safe, or the first of
  /// its numbered forms that no file of the space shows and no record before it took.
  func namesForImport(of records: [PhotoRecord]) -> [String] {
    guard !records.isEmpty else { return [] }
    let shown = tables.shownNames(of: entries).taken
    var taken = Set<String>()
    return records.map { ShownNames.firstFree(PhotoExporter.safeName($0.name), in: &taken, besides: shown) }
  }

  /// The names files show that the journal does not record for them (files imported
  /// before names were recorded, the second of two files that recorded one name on copies
  /// apart), but for `leavingOut`: what every write records, so that no later change (a
  /// deletion that frees a name, a merge) moves them.
  func unrecordedNames(leavingOut ids: Set<BlobID>) -> [BlobID: String] {
    tables.shownNames(of: entries).unrecorded.filter { id, _ in !ids.contains(id) }
  }

  /// The catalog of `previous`'s list with `photos` appended, the photos `changes` add (an
  /// import's write, `Space.record`), and `state`, the journal's after them: derived anew,
  /// but for the shown names, which `previous` hands on, and the imports of one photo,
  /// which the next catalog takes over. The list is taken from `previous`, not copied: when
  /// no one else holds `previous` (a browser may), the photos are appended in place.
  static func appending(
    _ photos: [IndexEntry], to previous: consuming SpaceCatalog, by changes: [JournalEntry],
    state: SpaceState?
  ) -> SpaceCatalog {
    let (tables, folders) = (previous.tables, previous.folders)
    var entries = (consume previous).entries
    let count = entries.count
    for photo in photos { entries.append(photo) }
    let next = SpaceCatalog(
      entries: entries, tables: CatalogTables(entries: entries, state: state, appendedTo: tables),
      folders: folders)
    let appended = entries.photoIDs[count...]
    let added = Set(appended)
    var renamed: [BlobID] = []
    for case .shownName(let id, _, _) in changes where !added.contains(id) { renamed.append(id) }
    tables.handNames(to: next.tables, appended: appended, renamed: renamed)
    return next
  }
}
