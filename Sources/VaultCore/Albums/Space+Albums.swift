/// What an addition to an album did.
public struct AlbumAddition: Equatable, Sendable {
  /// Photos that were not in the album before.
  public var added: Int
  /// Whether the album was made for it.
  public var created: Bool
  /// The album's name as it is kept: the name asked for may differ in case.
  public var name: String
}

extension Space {
  /// The albums, one per name, in name order (ignoring case), each with the photos the space
  /// lists. A format-1 space, which only a writer upgrades, has none.
  public var albums: [Album] { catalog.albums }

  /// The album named `name`, if there is one (see `SpaceCatalog.album(named:)`).
  public func album(named name: String) -> Album? { catalog.album(named: name) }

  /// The album named `name`; throws `.noSuchAlbum` if there is none.
  public func requireAlbum(named name: String) throws -> Album {
    guard let album = album(named: name) else { throw VaultError.noSuchAlbum(name) }
    return album
  }

  /// The names of the albums that hold the photo `id`, in name order.
  public func albumNames(of id: BlobID) -> [String] { catalog.albumNames(of: id) }

  // MARK: Changing albums (a writer)

  /// Makes, renames or deletes an album; returns the album as it was (nil for one made).
  func changeAlbum(_ naming: AlbumNaming) throws -> Album? {
    switch naming {
    case .create(let name):
      try createAlbum(named: name)
      return nil
    case .rename(let name, let newName):
      let album = try requireAlbum(named: name)
      try renameAlbum(name, to: newName)
      return album
    case .delete(let name):
      return try deleteAlbum(named: name)
    }
  }

  /// The stamp of a change made now (see `SpaceState.nextStamp`).
  private func stampNow(_ journal: SpaceJournal) -> Int64 {
    journal.state.nextStamp(now: Timestamp.now().nanosecondsSince1970)
  }

  /// Makes an empty album named `name` (a name `AlbumName.normalized` returned), which no
  /// album may have yet, even in another case.
  public func createAlbum(named name: String) throws {
    let journal = try requireJournal()
    if let existing = album(named: name) { throw VaultError.albumExists(existing.name) }
    try record([.albumNamed(.random(), name: name, stamp: stampNow(journal))])
  }

  /// Renames the album `name` to `newName`, which no other album may have yet, even in
  /// another case (a change of case alone is a rename). Returns the album's old name.
  @discardableResult
  public func renameAlbum(_ name: String, to newName: String) throws -> String {
    let journal = try requireJournal()
    let album = try requireAlbum(named: name)
    if album.name == newName {
      throw VaultError.invalidArgument(
        "the album '\(TerminalSafeText.escaped(newName))' has that name already")
    }
    if let other = self.album(named: newName), other.ids != album.ids {
      throw VaultError.albumExists(other.name)
    }
    let stamp = stampNow(journal)
    try record(album.ids.map { .albumNamed($0, name: newName, stamp: stamp) })
    return album.name
  }

  /// Deletes the album `name`, for good; its photos stay in the space. Returns the album as
  /// it was.
  @discardableResult
  public func deleteAlbum(named name: String) throws -> Album {
    _ = try requireJournal()
    let album = try requireAlbum(named: name)
    try record(album.ids.map { .albumDeleted($0) })
    return album
  }

  /// Puts the photos `ids` (those the space lists; others are passed over) in the album
  /// `name`; when there is no such album, makes it if `creating`, else throws
  /// `.noSuchAlbum`. One journal record holds it all.
  @discardableResult
  public func addToAlbum(named name: String, photos ids: [BlobID], creating: Bool = false) throws
    -> AlbumAddition
  {
    let journal = try requireJournal()
    let existing = album(named: name)
    if existing == nil && !creating { throw VaultError.noSuchAlbum(name) }
    let stamp = stampNow(journal)
    var changes: [JournalEntry] = []
    let target = existing?.ids[0] ?? .random()
    if existing == nil { changes.append(.albumNamed(target, name: name, stamp: stamp)) }
    var seen = existing?.photoIDs ?? []
    for id in ids where journal.state.photo(id) != nil && seen.insert(id).inserted {
      changes.append(.albumMembership(target, photo: id, member: true, stamp: stamp))
    }
    let added = changes.count - (existing == nil ? 1 : 0)
    try record(changes)
    return AlbumAddition(added: added, created: existing == nil, name: existing?.name ?? name)
  }

  /// Takes the photos `ids` out of the album `name` (out of each album of that name that
  /// holds them). Returns how many were in it.
  @discardableResult
  public func removeFromAlbum(named name: String, photos ids: [BlobID]) throws -> Int {
    let journal = try requireJournal()
    let album = try requireAlbum(named: name)
    let stamp = stampNow(journal)
    let memberships = journal.state.albumState.memberships
    var changes: [JournalEntry] = []
    var removed = Set<BlobID>()
    let imports = duplicateImports()
    for id in ids where album.photoIDs.contains(id) && removed.insert(id).inserted {
      // Out of the album with every import of it (see `CatalogTables.albums`).
      for photo in imports.all(of: id) {
        for albumID in album.ids where memberships[albumID]?[photo]?.member == true {
          changes.append(.albumMembership(albumID, photo: photo, member: false, stamp: stamp))
        }
      }
    }
    try record(changes)
    return removed.count
  }
}
