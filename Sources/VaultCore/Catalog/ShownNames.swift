import Synchronization

/// The name each file of a space shows under, in the mount's folders and in an export
/// (docs/FORMAT.md, "Shown names"): one name per file, unique in the whole space, so that
/// every folder showing a subset of the files shows each under the same name, and a name
/// stays with its file whatever is imported later.
///
/// A file whose name was recorded (`JournalEntry.shownName`: every import since names were
/// recorded) shows that name; of two files recording the same name (copies that each
/// imported `IMG.jpg` apart, then synced), the first in list order keeps it. Every other
/// file (imported before names were recorded, or the second of such a pair) takes the first
/// name left free, in list order: its own name made safe, then " (1)", " (2)"… A pure
/// function of the list and the recorded names, so merged copies agree.
enum ShownNames {
  /// The names of the files of `entries` (in list order) that `isShown` takes, given the
  /// names recorded for them.
  /// Returns them with the set of names they take. Counted in `resolutions`.
  static func resolve(
    _ entries: PhotoEntries, recorded: RecordedNames, isShown: (BlobID) -> Bool
  ) -> (names: [BlobID: String], taken: Set<String>) {
    resolutions.add(1, ordering: .relaxed)
    var names: [BlobID: String] = [:]
    names.reserveCapacity(entries.count)
    var taken = Set<String>()
    taken.reserveCapacity(entries.count)
    if !recorded.isEmpty {
      for id in entries.photoIDs where isShown(id) {
        guard let naming = recorded[id] else { continue }
        let name = PhotoExporter.safeName(naming.name)
        if taken.insert(name).inserted { names[id] = name }
      }
    }
    for position in entries.indices {
      let id = entries.id(at: position)
      guard names[id] == nil, isShown(id) else { continue }
      names[id] = firstFree(PhotoExporter.safeName(entries.record(at: position).name), in: &taken)
    }
    return (names, taken)
  }

  /// How many times the names of a whole list were resolved: a test's way to see that a
  /// write does not resolve them again (a pass over every file of the space).
  static let resolutions = Atomic<Int>(0)

  /// `name`, or the first of its numbered forms neither in `taken`, which it joins, nor in
  /// `shown`.
  static func firstFree(_ name: String, in taken: inout Set<String>, besides shown: Set<String> = [])
    -> String
  {
    for attempt in 0... {
      let candidate = PathComponent.numbered(name, attempt)
      if !shown.contains(candidate), taken.insert(candidate).inserted { return candidate }
    }
    fatalError("unreachable")
  }
}

/// The names recorded for files (`JournalEntry.shownName`), by file: changed by the
/// journal's state a few at a time, and kept by every catalog (see `LayeredDictionary`).
typealias RecordedNames = LayeredDictionary<BlobID, AlbumState.Naming>
