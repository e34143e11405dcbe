import Synchronization

/// What a catalog derives from its list once, when it is built (see `SpaceCatalog`): which
/// photos are the imports of one photo, which stills and MOVs are one Live Photo, the albums
/// and each photo's album names, and which photos are listed. Immutable, so a catalog made
/// for a change of selection (which changes none of it) shares it, and threads share it.
final class CatalogTables: Sendable {
  let imports: DuplicateImports
  let pairs: LivePairs
  /// The albums, one per name, in name order, with hidden imports counted as the photo they
  /// are imports of.
  let albums: [Album]
  let albumNames: [BlobID: [String]]
  /// The positions in the list of the photos that are not listed on their own (Live
  /// motions, hidden imports): an item's other files are found here.
  let unlistedPositions: [BlobID: Int]
  /// The positions in the list of the items, in list order; nil when every photo is one.
  let listed: [Int]?
  /// Recently Deleted: what is in it (see `TrashTables`).
  let trash: TrashTables
  /// The names recorded for files (`JournalEntry.shownName`).
  let recordedNames: RecordedNames
  /// The names every listed file and every file in Recently Deleted shows under
  /// (`ShownNames`), made when first asked for: a command that never shows a file by name
  /// never pays for them. An import moves them on to the next tables (`handNames`).
  private let names = Mutex<ShownNameTable?>(nil)

  /// Nothing is derived from an empty list, nor what has nothing to derive from (a space
  /// without Live Photo identifiers, or without albums): opening a big space costs only the
  /// pass over its content hashes that finds imports of one photo, which the tables of a
  /// list with photos appended (`previous`'s list, an import) take over instead, as they
  /// take over `importsFound` among the list's first photos (while its snapshot was read).
  init(
    entries: PhotoEntries, state: SpaceState?, importsFound: DuplicateImports? = nil,
    appendedTo previous: CatalogTables? = nil
  ) {
    let imports = (previous?.imports ?? importsFound)?.appending(entries) ?? DuplicateImports(entries)
    let trashed = state?.trashed ?? [:]
    // Trashed halves pair among themselves only: a still whose MOV alone was deleted is a
    // photo of its own, and a Live Photo in the trash is one item there too.
    let pairs = Self.pairs(state: state, imports: imports) { trashed[$0] == nil }
    self.imports = imports
    self.pairs = pairs
    recordedNames = state?.recordedNames ?? RecordedNames()
    trash = TrashTables(
      entries: entries, trashed: trashed, imports: imports,
      pairs: trashed.isEmpty
        ? LivePairs() : Self.pairs(state: state, imports: imports) { trashed[$0] != nil },
      retention: state?.trashRetention ?? .standard)
    (albums, albumNames) = Self.albums(state: state, imports: imports, trashed: trashed)
    (unlistedPositions, listed) = Self.unlisted(entries, imports: imports, pairs: pairs, trashed: trashed)
  }

  /// The Live Photos among the photos `including` takes.
  private static func pairs(state: SpaceState?, imports: DuplicateImports, including: (BlobID) -> Bool)
    -> LivePairs
  {
    guard let state, !state.liveIdentifiers.isEmpty else { return LivePairs() }
    return LivePairs(
      identifiers: state.liveIdentifiers,
      photo: { id in
        guard including(id) else { return nil }
        return state.photo(id).map { ($0.record.format, $0.order, $0.record.name) }
      },
      listedImport: imports.listed)
  }

  /// The names of the files of `entries` (this list, with any selection). A file in
  /// Recently Deleted is still in `entries` and keeps its name: only a deletion for good
  /// frees it.
  func shownNames(of entries: PhotoEntries) -> ShownNameTable {
    names.withLock { names in
      if let names { return names }
      let made = ShownNameTable(entries: entries, recorded: recordedNames, isShown: isShown)
      names = made
      return made
    }
  }

  /// The shown-name table if `shownNames(of:)` has made it already; nil, not made, else.
  var madeShownNames: ShownNameTable? { names.withLock { $0 } }

  /// Whether the file `id` shows under a name: every file but the hidden imports.
  private func isShown(_ id: BlobID) -> Bool { imports.keptImport[id] == nil }

  /// Moves the names, if made, on to `next`, the tables of this list with `appended` added
  /// at its end and `renamed` recording their names anew (an import's write), when that
  /// keeps them exact (`ShownNameTable.append`); these tables make them again if asked.
  /// Moved, not copied: an import's cost per photo stays that of its own photos.
  func handNames(to next: CatalogTables, appended: some Sequence<BlobID>, renamed: some Sequence<BlobID>) {
    guard
      var table = names.withLock({ names in
        let table = names
        names = nil
        return table
      })
    else { return }
    guard table.append(appended, renamed: renamed, recorded: next.recordedNames, isShown: next.isShown)
    else { return }
    next.names.withLock { $0 = table }
  }

  /// The albums with each hidden import (see `DuplicateImports`) counted as the photo it is
  /// one of: the albums a copy put its import in before the copies met are carried over to
  /// the one item, so that no copy's album loses a photo it showed.
  /// A photo in Recently Deleted is in its albums again once restored, not before.
  private static func albums(state: SpaceState?, imports: DuplicateImports, trashed: [BlobID: Int64])
    -> ([Album], [BlobID: [String]])
  {
    guard let state, !state.albumState.isEmpty else { return ([], [:]) }
    var albums = state.albums()
    if !imports.isEmpty || !trashed.isEmpty {
      albums = albums.map { album in
        let items = Set(album.photoIDs.map(imports.listed)).filter { trashed[$0] == nil }
        return Album(name: album.name, photoIDs: items, ids: album.ids)
      }
    }
    var names: [BlobID: [String]] = [:]
    for album in albums {
      for id in album.photoIDs { names[id, default: []].append(album.name) }
    }
    return (albums, names)
  }

  /// The photos listed under another (MOVs under their still, hidden imports under the
  /// listed one), by id with their positions, and the positions of the others.
  /// Photos in Recently Deleted are neither.
  private static func unlisted(
    _ entries: PhotoEntries, imports: DuplicateImports, pairs: LivePairs, trashed: [BlobID: Int64]
  ) -> ([BlobID: Int], [Int]?) {
    guard !imports.isEmpty || !pairs.isEmpty || !trashed.isEmpty else { return ([:], nil) }
    var unlisted: [BlobID: Int] = [:]
    var listed: [Int] = []
    for (position, id) in entries.photoIDs.enumerated() {
      if trashed[imports.listed(id)] != nil { continue }
      if imports.keptImport[id] != nil || pairs.stillOfMotion[id] != nil {
        unlisted[id] = position
      } else {
        listed.append(position)
      }
    }
    return (unlisted, listed)
  }
}
