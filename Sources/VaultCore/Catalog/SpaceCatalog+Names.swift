/// The names the files of a catalog show under (`ShownNames`), and those a new import takes.
extension SpaceCatalog {
  /// The name of every listed file (stills, MOVs, videos; not the hidden imports of a photo
  /// imported on several copies, which show as the one they are imports of), and of every
  /// file in Recently Deleted, which holds its name until it is deleted for good.
  public func shownNames() -> [BlobID: String] {
    tables.shownNames(of: entries)
  }

  /// The names `records`, imported now, take: each its own name made safe, or the first of
  /// its numbered forms that no file of the space shows and no record before it took.
  func namesForImport(of records: [PhotoRecord]) -> [String] {
    guard !records.isEmpty else { return [] }
    var taken = Set(shownNames().values)
    return records.map { ShownNames.firstFree(PhotoExporter.safeName($0.name), in: &taken) }
  }

  /// The names files show that the journal does not record for them (files imported
  /// before names were recorded, the second of two files that recorded one name on copies
  /// apart), but for `leavingOut`: what every write records, so that no later change (a
  /// deletion that frees a name, a merge) moves them.
  func unrecordedNames(leavingOut ids: Set<BlobID>) -> [BlobID: String] {
    shownNames().filter { id, name in tables.recordedNames[id]?.name != name && !ids.contains(id) }
  }
}
