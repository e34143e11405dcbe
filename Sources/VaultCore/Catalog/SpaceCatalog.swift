import Foundation
import Synchronization

/// One state of a space, as everything that reads it sees it: its photos in list order with
/// their selection, and what is derived from them once (`CatalogTables`): the items (a Live
/// Photo's still with its MOV, a photo imported on several copies as its earliest import),
/// lookups by id and by content hash, and the albums. `Space` builds one when it opens and
/// at every change, and publishes it (`Space.catalog`); a browser holds the one it read
/// until it reloads. Immutable, so threads hand it to each other.
public struct SpaceCatalog: Sendable {
  /// Every photo in import order, hidden imports and Live motions included.
  public let entries: PhotoEntries
  let tables: CatalogTables
  /// The folders of the originals and thumbnails, which an item's URLs name.
  let folders: BlobFolders
  /// New with every catalog (a change of selection too): a browser that compares two knows
  /// whether its list may have changed.
  public let version: Int

  init(
    entries: PhotoEntries, state: SpaceState?, importsFound: DuplicateImports? = nil, folders: BlobFolders
  ) {
    self.init(
      entries: entries, tables: CatalogTables(entries: entries, state: state, importsFound: importsFound),
      folders: folders)
  }

  init(entries: PhotoEntries, tables: CatalogTables, folders: BlobFolders) {
    self.entries = entries
    self.tables = tables
    self.folders = folders
    version = Self.versions.withLock { version in
      version &+= 1
      return version
    }
  }

  private static let versions = Mutex(0)

  /// The same catalog with the selection of `entries` (the same photos, records and order):
  /// nothing is derived again.
  func withSelection(of entries: PhotoEntries) -> SpaceCatalog {
    SpaceCatalog(entries: entries, tables: tables, folders: folders)
  }

  /// Whether `other` lists the same items in the same order (only selections may differ).
  public func hasSameItems(as other: SpaceCatalog) -> Bool { tables === other.tables }

  // MARK: Items

  /// How many items it lists.
  public var count: Int { tables.listed?.count ?? entries.count }

  /// Whether every photo is an item of its own (no Live Photo, no photo imported twice).
  var listsEveryPhoto: Bool { tables.listed == nil }

  /// The item whose still (or only file) is at `position` in `entries`.
  public func item(at position: Int) -> PhotoModel {
    let entry = entries[position]
    var model = PhotoModel(
      record: entry.record, folders: folders, isSelected: entry.selected,
      albums: albumNames(of: entry.record.id))
    model.motion = motion(of: entry.record.id)
    return model
  }

  /// The position in `entries` of the item that `id` is a file of: its still, its MOV or any
  /// of its imports.
  public func position(of id: BlobID) -> Int? {
    let listed = tables.imports.listed(id)
    if tables.trash.holds(listed) { return nil }
    let still = tables.pairs.stillOfMotion[listed] ?? listed
    return entries.photoIDs.firstIndex(of: still)
  }

  /// The item that `id` is a file of, if it is listed.
  public func item(withID id: BlobID) -> PhotoModel? {
    position(of: id).map(item(at:))
  }

  /// The item whose file (or one of whose files) has the keyed content hash `hash`: what an
  /// import finds a file it was given again by.
  func item(withContentHash hash: ContentHash) -> PhotoModel? {
    photoID(withContentHash: hash).flatMap(item(withID:))
  }

  /// The id of the file whose keyed content hash is `hash` (its earliest import): what
  /// `add` and `serve` skip a file they were given again by.
  func photoID(withContentHash hash: ContentHash) -> BlobID? {
    tables.imports.position(of: hash, in: entries).map(entries.id(at:))
  }

  /// The MOV listed under the still `id`, if it is one's.
  func motion(of id: BlobID) -> PhotoRecord? {
    guard let motion = tables.pairs.motionOfStill[id], let position = tables.unlistedPositions[motion] else {
      return nil
    }
    return entries.record(at: position)
  }

  /// The hidden imports of the listed photo `id` (none for most photos).
  func otherImports(of id: BlobID) -> [PhotoRecord] {
    (tables.imports.otherImports[id] ?? []).compactMap {
      tables.unlistedPositions[$0].map(entries.record(at:))
    }
  }

  /// Every import of the photo `id` is an import of, the listed one first.
  func imports(of id: BlobID) -> [BlobID] { tables.imports.all(of: id) }

  /// `positions` (in `entries`) without the photos listed under another, so that an item
  /// takes one number in every list.
  func onlyItems(_ positions: [Int]) -> [Int] {
    guard !listsEveryPhoto else { return positions }
    return positions.filter {
      let id = entries.id(at: $0)
      return tables.unlistedPositions[id] == nil && !tables.trash.holds(id)
    }
  }

  // MARK: Albums

  /// The albums, one per name, in name order (ignoring case).
  public var albums: [Album] { tables.albums }

  /// The album named `name` (once normalized: see `AlbumName`), if there is one: the one
  /// of exactly that name, else the only one whose name differs from it in case alone, so
  /// that `greece` typed in a hurry finds "Greece" rather than making a second album.
  public func album(named name: String) -> Album? {
    if let exact = albums.first(where: { $0.name == name }) { return exact }
    let folded = name.lowercased()
    let alike = albums.filter { $0.name.lowercased() == folded }
    return alike.count == 1 ? alike[0] : nil
  }

  /// The names of the albums that hold the photo `id`, in name order.
  public func albumNames(of id: BlobID) -> [String] {
    tables.albumNames.isEmpty ? [] : tables.albumNames[id] ?? []
  }
}

/// The folders of a space's originals and thumbnails.
struct BlobFolders: Equatable, Sendable {
  let photo: String
  let thumb: String
}
