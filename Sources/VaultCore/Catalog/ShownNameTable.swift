/// The names the files of a catalog show under (`ShownNames`), with what every write asks
/// of them: the names taken (which a new import's names avoid) and the names the journal
/// does not record (which a write records, `Space.namesKept`). Resolving them is a pass
/// over every file of the space; an import, which only appends photos, moves them on to the
/// next catalog instead (`append`), so that its cost per photo does not grow with
/// the space.
struct ShownNameTable: Sendable {
  /// The name of each shown file.
  private(set) var names: [BlobID: String]
  /// The names in `names`.
  private(set) var taken: Set<String>
  /// The files of `names` whose name the journal does not record (`recordedNames`).
  private(set) var unrecorded: [BlobID: String]

  /// The names of the files of `entries` that `isShown` takes, resolved.
  init(entries: PhotoEntries, recorded: RecordedNames, isShown: (BlobID) -> Bool) {
    (names, taken) = ShownNames.resolve(entries, recorded: recorded, isShown: isShown)
    unrecorded = names.filter { id, name in recorded[id]?.name != name }
  }

  /// Adds to the table `appended`, added at the end of its list, where `renamed` (files of
  /// the list) have their names recorded anew; `recorded` and `isShown` are those of the
  /// new list. The table is then the same as the new list's resolved, when each appended
  /// file that shows records a name no file takes and each renamed file records the name
  /// it shows: every file keeps its name (no recorded name is taken from it, and no
  /// numbered name it took is taken sooner), and each appended file shows its own.
  /// Otherwise false, and the table is left unfinished: the new list's names are resolved.
  mutating func append(
    _ appended: some Sequence<BlobID>, renamed: some Sequence<BlobID>,
    recorded: RecordedNames, isShown: (BlobID) -> Bool
  ) -> Bool {
    for id in renamed {
      guard let shown = names[id], let naming = recorded[id], PhotoExporter.safeName(naming.name) == shown
      else { return false }
      if naming.name == shown { unrecorded[id] = nil }
    }
    for id in appended where isShown(id) {
      guard names[id] == nil, let naming = recorded[id] else { return false }
      let name = PhotoExporter.safeName(naming.name)
      guard taken.insert(name).inserted else { return false }
      names[id] = name
      if naming.name != name { unrecorded[id] = name }
    }
    return true
  }
}
