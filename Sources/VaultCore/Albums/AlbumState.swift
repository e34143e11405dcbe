/// A space's albums, folded from its journal: each album's latest name, the albums deleted
/// for good, and each photo's latest membership of each album. Like the rest of
/// `SpaceState`, applying is commutative and idempotent, so merged copies agree whatever
/// order their files are read in.
struct AlbumState {
  struct Naming: Equatable {
    var name: String
    var stamp: Int64

    /// Latest wins; at equal stamps (two copies renaming at the same nanosecond), the name
    /// whose UTF-8 bytes sort last, so that the merge is the same either way.
    func supersedes(_ other: Naming) -> Bool {
      stamp != other.stamp ? stamp > other.stamp : other.name.utf8.lexicographicallyPrecedes(name.utf8)
    }
  }

  struct Membership: Equatable {
    var member: Bool
    var stamp: Int64

    /// Latest wins; at equal stamps, being in the album wins (as selecting does).
    func supersedes(_ other: Membership) -> Bool {
      stamp != other.stamp ? stamp > other.stamp : member && !other.member
    }
  }

  private(set) var names: [AlbumID: Naming] = [:]
  private(set) var deleted: Set<AlbumID> = []
  /// Kept for albums not (yet) named and photos not (yet) added too: in merged copies a
  /// membership can be read before the album's name or the photo's addition.
  private(set) var memberships: [AlbumID: [BlobID: Membership]] = [:]

  var isEmpty: Bool { names.isEmpty && deleted.isEmpty && memberships.isEmpty }

  mutating func name(_ album: AlbumID, _ naming: Naming) {
    if deleted.contains(album) { return }
    if let existing = names[album], !naming.supersedes(existing) { return }
    names[album] = naming
  }

  mutating func delete(_ album: AlbumID) {
    deleted.insert(album)
    names[album] = nil
    memberships[album] = nil
  }

  mutating func setMembership(_ album: AlbumID, photo: BlobID, _ membership: Membership) {
    if deleted.contains(album) { return }
    if let existing = memberships[album]?[photo], !membership.supersedes(existing) { return }
    memberships[album, default: [:]][photo] = membership
  }

  /// The fewest entries that rebuild these albums: names, then memberships (albums and
  /// photos in byte order) but those of the `deleted` photos, then deletions. A deleted
  /// photo leaves every album; its memberships are dropped here, not at each deletion.
  func compacted(leavingOut deletedPhotos: Set<BlobID> = []) -> [JournalEntry] {
    var result: [JournalEntry] = []
    for (album, naming) in names.sorted(by: { $0.key < $1.key }) {
      result.append(.albumNamed(album, name: naming.name, stamp: naming.stamp))
    }
    for (album, photos) in memberships.sorted(by: { $0.key < $1.key }) {
      for (photo, membership) in photos.sorted(by: { $0.key < $1.key }) where !deletedPhotos.contains(photo) {
        result.append(
          .albumMembership(album, photo: photo, member: membership.member, stamp: membership.stamp))
      }
    }
    for album in deleted.sorted() { result.append(.albumDeleted(album)) }
    return result
  }

  /// The albums that have a name, one per name (see `Album`), in name order (ignoring
  /// case); each holds its members for which `isListed` holds.
  func albums(isListed: (BlobID) -> Bool) -> [Album] {
    var byName: [String: [AlbumID]] = [:]
    for (album, naming) in names { byName[naming.name, default: []].append(album) }
    let sortedNames = byName.keys.sorted { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
    return sortedNames.map { name in
      let ids = byName[name]!.sorted()
      var photos = Set<BlobID>()
      for album in ids {
        for (photo, membership) in memberships[album] ?? [:] where membership.member && isListed(photo) {
          photos.insert(photo)
        }
      }
      return Album(name: name, photoIDs: photos, ids: ids)
    }
  }
}
