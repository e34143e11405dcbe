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
  /// The names recorded for files (`JournalEntry.shownName`).
  let recordedNames: [BlobID: AlbumState.Naming]
  /// The names every listed file shows under (`ShownNames`), made when first asked for: a
  /// command that never shows a file by name never pays for them.
  private let names = Mutex<[BlobID: String]?>(nil)

  /// Nothing is derived from an empty list, nor what has nothing to derive from (a space
  /// without Live Photo identifiers, or without albums): opening a big space costs only the
  /// pass over its content hashes that finds imports of one photo.
  init(entries: PhotoEntries, state: SpaceState?) {
    let imports = DuplicateImports(entries)
    var pairs = LivePairs()
    if let state, !state.liveIdentifiers.isEmpty {
      pairs = LivePairs(
        identifiers: state.liveIdentifiers,
        photo: { id in state.photo(id).map { ($0.record.format, $0.order, $0.record.name) } },
        listedImport: imports.listed)
    }
    self.imports = imports
    self.pairs = pairs
    recordedNames = state?.recordedNames ?? [:]
    (albums, albumNames) = Self.albums(state: state, imports: imports)
    (unlistedPositions, listed) = Self.unlisted(entries, imports: imports, pairs: pairs)
  }

  /// The names of the files of `entries` (this list, with any selection).
  func shownNames(of entries: PhotoEntries) -> [BlobID: String] {
    names.withLock { names in
      if let names { return names }
      let made = ShownNames.resolve(entries, recorded: recordedNames) { imports.keptImport[$0] == nil }
      names = made
      return made
    }
  }

  /// The albums with each hidden import (see `DuplicateImports`) counted as the photo it is
  /// one of: the albums a copy put its import in before the copies met are carried over to
  /// the one item, so that no copy's album loses a photo it showed.
  private static func albums(state: SpaceState?, imports: DuplicateImports) -> ([Album], [BlobID: [String]]) {
    guard let state, !state.albumState.isEmpty else { return ([], [:]) }
    var albums = state.albums()
    if !imports.isEmpty {
      albums = albums.map { album in
        Album(name: album.name, photoIDs: Set(album.photoIDs.map(imports.listed)), ids: album.ids)
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
  private static func unlisted(_ entries: PhotoEntries, imports: DuplicateImports, pairs: LivePairs)
    -> ([BlobID: Int], [Int]?)
  {
    guard !imports.isEmpty || !pairs.isEmpty else { return ([:], nil) }
    var unlisted: [BlobID: Int] = [:]
    var listed: [Int] = []
    for (position, id) in entries.photoIDs.enumerated() {
      if imports.keptImport[id] != nil || pairs.stillOfMotion[id] != nil {
        unlisted[id] = position
      } else {
        listed.append(position)
      }
    }
    return (unlisted, listed)
  }
}
