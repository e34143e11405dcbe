/// What a space holds, folded from its journal: the photos, the deletions, the selections,
/// the albums, and the details read from the photos' files. Applying an entry is commutative
/// and idempotent (a set of additions, a set of deletions that wins over them, and a
/// latest-wins selection and details per photo; albums alike), so the state of merged copies
/// does not depend on the order their files are read in.
package struct SpaceState {
  struct Photo {
    var record: PhotoRecord
    var order: Int64
  }

  struct Selection: Equatable {
    var selected: Bool
    var stamp: Int64

    /// Latest wins; at equal stamps, selecting wins, so that the merge is the same either way.
    func supersedes(_ other: Selection) -> Bool {
      stamp != other.stamp ? stamp > other.stamp : selected && !other.selected
    }
  }

  /// The photos as the list shows them (with their selection), kept in list order while
  /// entries come in order (as a snapshot's do), so that opening a big space needs no sort
  /// and `entries()` hands this very list out; `orders` and `detailStamps` run beside it,
  /// and `index` finds a photo by id. A deleted photo's place is in `holes` until
  /// `entries()`. The photos of a snapshot are held undecoded (see `applySnapshotItem`).
  private var list = PhotoEntries()
  private var orders: [Int64] = []
  private var index = PositionIndex()
  private var holes: Set<Int> = []
  private var listIsOrdered = true
  /// The imports of one photo (`DuplicateImports`) among the photos of `list`, found as a
  /// snapshot is applied (`findImportsOfListed`). Valid while `list` is `entries()` with
  /// photos appended only: in order, with no holes (a list that lost that never regains it).
  private var importsOfList = DuplicateImports()
  private(set) var deleted: Set<BlobID> = []
  /// Kept for photos not (yet) added too: in merged copies a selection can be read before
  /// the photo's addition.
  private(set) var selections: [BlobID: Selection] = [:]
  /// The largest order of any photo ever added here, so that a new photo goes last.
  private(set) var lastOrder: Int64 = .min
  /// The latest stamp seen (of a selection, details or an album's change), so that a new
  /// change wins even if the clock is behind.
  var lastStamp: Int64 = .min
  private(set) var albumState = AlbumState()
  /// The stamp of each listed photo's latest details, by position (nil: none read yet).
  /// The details themselves are in the photo's record.
  private var detailStamps: [Int64?] = []
  /// The same for photos not (yet) added, with their details: in merged copies details can
  /// be read before the photo's addition.
  private var unlistedDetailStamps: [BlobID: Int64] = [:]
  private var unlistedDetails: [BlobID: PhotoDetails] = [:]
  /// The Live Photo identifier of each photo that has one, listed or not (yet).
  private(set) var liveIdentifiers: [BlobID: String] = [:]
  /// The latest Recently Deleted mark of each photo that has one (`selected`: in the trash),
  /// listed or not (yet), as selections are (see `SpaceState+Trash`).
  var trashMarks: [BlobID: Selection] = [:]
  /// The latest trash retention set, with its stamp; nil: the standard one.
  var retentionSetting: (retention: TrashRetention, stamp: Int64)?
  /// The name each file shows under (`ShownNames`), where one was recorded, listed or not
  /// (yet); the same latest-wins rule as an album's name (see `SpaceState+Names`).
  var recordedNames = RecordedNames()
  /// The remote of the offloaded originals and its stamp (see `SpaceState+Offload`).
  var offloadRemoteSetting: AlbumState.Naming?

  package init() {}

  /// A state that lists `entries` in their order, the selected ones selected at `stamp`:
  /// format 1's index on an upgrade, or an index rebuilt by `verify --repair`.
  package init<Entries: Sequence>(listing entries: Entries, selectedAt stamp: Int64)
  where Entries.Element == IndexEntry {
    add(entries, selectedAt: stamp)
  }

  /// Adds `entries` in their order: each photo's order is its import time, kept increasing
  /// in list order; the selected ones are selected at `stamp`.
  mutating func add<Entries: Sequence>(_ entries: Entries, selectedAt stamp: Int64)
  where Entries.Element == IndexEntry {
    var order = Int64.min
    for entry in entries {
      order = max(entry.record.importedAt.nanosecondsSince1970, Self.after(order))
      apply(.added(entry.record, order: order))
      if entry.selected { apply(.selection(entry.record.id, selected: true, stamp: stamp)) }
      // A record read from its original holds the details read at its import.
      let details = PhotoDetails(of: entry.record)
      if !details.isEmpty { apply(.details(entry.record.id, details, stamp: stamp)) }
    }
  }

  var photoCount: Int { index.count }

  /// Where the listed photo `id` is in `list`.
  private func position(of id: BlobID) -> Int? {
    let ids = list.photoIDs
    return index.position(of: id) { ids[$0] }
  }

  // The index reads ids from a copy of the list's array made for the call, not through
  // `list`: a closure reading `self` while `index` changes made a copy of the whole state at
  // every call. The copy is let go on return, before the list changes again (it would
  // otherwise be copied at its next append).

  /// Adds the photo `id` to the index at the end of the list, unless it is there already:
  /// then its position.
  private mutating func indexAtEnd(_ id: BlobID) -> Int? {
    let ids = list.photoIDs
    return index.insert(id, at: ids.count) { ids[$0] }
  }

  /// Reads ahead the index's slots for the photos `items` add (see `PositionIndex.warm`).
  mutating func warmIndex(for items: [SnapshotPhotoItem]) {
    index.warm(items.lazy.filter { $0.kind == .added }.map(\.id))
  }

  private mutating func removeFromIndex(_ id: BlobID) -> Int? {
    let ids = list.photoIDs
    return index.remove(id) { ids[$0] }
  }

  func photo(_ id: BlobID) -> Photo? {
    position(of: id).map { Photo(record: list.record(at: $0), order: orders[$0]) }
  }

  package mutating func apply(_ entry: JournalEntry) {
    switch entry {
    case .added(let record, let order):
      applyAddition(record, order: order)
    case .deleted(let id):
      deleted.insert(id)
      if let position = removeFromIndex(id) {
        holes.insert(position)
        detailStamps[position] = nil
      }
      if !selections.isEmpty { selections[id] = nil }
      if !liveIdentifiers.isEmpty { liveIdentifiers[id] = nil }
      if !trashMarks.isEmpty { trashMarks[id] = nil }
      if !recordedNames.isEmpty { recordedNames[id] = nil }
      // Its album memberships stay until a snapshot leaves them out (`compacted`): removing
      // them here walked every album at each deletion, at every open.
      if !unlistedDetailStamps.isEmpty {
        unlistedDetailStamps[id] = nil
        unlistedDetails[id] = nil
      }
    case .details(let id, let details, let stamp):
      applyDetails(details, of: id, stamp: stamp)
    case .selection(let id, let selected, let stamp):
      lastStamp = max(lastStamp, stamp)
      if !deleted.isEmpty && deleted.contains(id) { return }
      let selection = Selection(selected: selected, stamp: stamp)
      if let existing = selections[id], !selection.supersedes(existing) { return }
      selections[id] = selection
      if let position = position(of: id) { list.setSelected(selected, at: position) }
    case .liveIdentifier(let id, let identifier):
      if !deleted.isEmpty && deleted.contains(id) { return }
      if let existing = liveIdentifiers[id], existing <= identifier { return }
      liveIdentifiers[id] = identifier
    case .trashed(let id, let trashed, let stamp):
      applyTrashMark(Selection(selected: trashed, stamp: stamp), of: id)
    case .spaceSetting(let setting, let stamp):
      applySetting(setting, stamp: stamp)
    case .offloadRemote(let remote, let stamp):
      applyOffloadRemote(remote, stamp: stamp)
    case .albumNamed(let album, let name, let stamp):
      lastStamp = max(lastStamp, stamp)
      albumState.name(album, AlbumState.Naming(name: name, stamp: stamp))
    case .shownName(let id, let name, let stamp):
      applyShownName(AlbumState.Naming(name: name, stamp: stamp), of: id)
    case .albumDeleted(let album):
      albumState.delete(album)
    case .albumMembership(let album, let photo, let member, let stamp):
      lastStamp = max(lastStamp, stamp)
      if !deleted.isEmpty && deleted.contains(photo) { return }
      albumState.setMembership(
        album, photo: photo, AlbumState.Membership(member: member, stamp: stamp))
    }
  }

  /// A photo's or its details' entry of the snapshot `snapshot`, as `apply` would apply it
  /// decoded. A photo not seen before is listed undecoded (its record stays in the
  /// snapshot's bytes), and so are its first details; anything else (a photo added twice,
  /// details read before the photo, several snapshots) is decoded and applied as usual.
  mutating func applySnapshotItem(_ item: SnapshotPhotoItem, of snapshot: SnapshotBytes) {
    let (id, offset) = (item.id, item.offset)
    switch item.kind {
    case .added:
      let order = item.orderOrStamp
      let plain =
        (deleted.isEmpty || !deleted.contains(id))
        && (unlistedDetailStamps.isEmpty || unlistedDetailStamps[id] == nil)
        && list.canHoldEncoded(of: snapshot)
      // One lookup for a new photo: it is added to the index unless it is there already.
      guard plain, indexAtEnd(id) == nil else {
        return apply(.added(snapshot.record(added: offset, details: nil), order: order))
      }
      if let last = orders.last, (last, list.id(at: list.count - 1)) > (order, id) {
        listIsOrdered = false
      }
      list.appendEncoded(id, added: offset, in: snapshot, selected: isSelected(id))
      orders.append(order)
      detailStamps.append(nil)
      lastOrder = max(lastOrder, order)
    case .details:
      let stamp = item.orderOrStamp
      // A snapshot lists a photo's details right after it (`compacted`): no lookup then.
      let listedLast =
        !list.isEmpty && list.id(at: list.count - 1) == id
        && (holes.isEmpty || !holes.contains(list.count - 1))
      guard let position = listedLast ? list.count - 1 : position(of: id), detailStamps[position] == nil,
        list.encodedWithoutDetails(at: position, in: snapshot) != nil
      else {
        return apply(.details(id, snapshot.details(at: offset), stamp: stamp))
      }
      detailStamps[position] = stamp
      lastStamp = max(lastStamp, stamp)
      list.setEncodedDetails(offset, at: position)
    }
  }

  private mutating func applyAddition(_ record: PhotoRecord, order: Int64) {
    // (Each map is asked only when it holds something: a big space's open is mostly this.)
    if !deleted.isEmpty && deleted.contains(record.id) {
      lastOrder = max(lastOrder, order)
      return
    }
    let selected = isSelected(record.id)
    // One lookup for a new photo: it is added to the index unless it is there already.
    let listed = indexAtEnd(record.id)
    let stamp = listed.map { detailStamps[$0] } ?? unlistedDetailStamps.removeValue(forKey: record.id)
    // A record's details are those of the latest `details` entry, whatever the record
    // given here holds, as they are for a record read back from the journal.
    var record = record
    if stamp != nil {
      record =
        (unlistedDetails.removeValue(forKey: record.id) ?? listed.map {
          PhotoDetails(of: list.record(at: $0))
        }
        ?? PhotoDetails()).applied(to: record)
    } else if record.taken != nil || record.cameraMake != nil || record.cameraModel != nil {
      record = PhotoDetails().applied(to: record)
    }
    // The same photo added twice (a writer's record and a repair's adoption of its blob):
    // the smaller order wins, whichever is read first.
    if let position = listed {
      let existing = list.record(at: position)
      guard Self.addition(record, order, supersedes: existing, orders[position]) else { return }
      list.setRecord(record, at: position)
      list.setSelected(selected, at: position)
      orders[position] = order
      listIsOrdered = false
    } else {
      if let last = orders.last, (last, list.id(at: list.count - 1)) > (order, record.id) {
        listIsOrdered = false
      }
      list.append(IndexEntry(record: record, selected: selected))
      orders.append(order)
      detailStamps.append(stamp)
    }
    lastOrder = max(lastOrder, order)
  }

  /// Of two additions of one photo, the one with the smaller order wins; equal orders (which
  /// only a forged or adopted copy gives) are settled by the record, and records alike in
  /// all of that by their whole encoding, so that the result never depends on which is read
  /// first.
  private static func addition(
    _ new: PhotoRecord, _ order: Int64, supersedes existing: PhotoRecord, _ existingOrder: Int64
  ) -> Bool {
    let keys = (existingOrder, existing.importedAt.nanosecondsSince1970, existing.name, existing.contentHash)
    let newKeys = (order, new.importedAt.nanosecondsSince1970, new.name, new.contentHash)
    if keys != newKeys { return newKeys < keys }
    return JournalEntry.encodeAll([.added(new, order: order)]).lexicographicallyPrecedes(
      JournalEntry.encodeAll([.added(existing, order: existingOrder)]))
  }

  private mutating func applyDetails(_ details: PhotoDetails, of id: BlobID, stamp: Int64) {
    lastStamp = max(lastStamp, stamp)
    if !deleted.isEmpty && deleted.contains(id) { return }
    let position = position(of: id)
    if let existingStamp = position.map({ detailStamps[$0] }) ?? unlistedDetailStamps[id] {
      let existing =
        position.map { PhotoDetails(of: list.record(at: $0)) } ?? unlistedDetails[id]
        ?? PhotoDetails()
      guard Self.details(details, stamp, supersede: existing, existingStamp, of: id) else { return }
    }
    if let position {
      detailStamps[position] = stamp
      // Most files say nothing new: the record is left alone.
      let record = list.record(at: position)
      if PhotoDetails(of: record) != details {
        list.setRecord(details.applied(to: record), at: position)
      }
    } else {
      unlistedDetailStamps[id] = stamp
      unlistedDetails[id] = details
    }
  }

  /// The albums, one per name, in name order, each with the photos listed here.
  func albums() -> [Album] {
    albumState.albums { position(of: $0) != nil }
  }

  /// Latest wins; at equal stamps (two copies that read the same photo at the same
  /// nanosecond), the larger encoding, so that the merge is the same either way.
  private static func details(
    _ new: PhotoDetails, _ stamp: Int64, supersede existing: PhotoDetails, _ existingStamp: Int64,
    of id: BlobID
  ) -> Bool {
    if stamp != existingStamp { return stamp > existingStamp }
    return JournalEntry.encodeAll([.details(id, existing, stamp: stamp)]).lexicographicallyPrecedes(
      JournalEntry.encodeAll([.details(id, new, stamp: stamp)]))
  }

  /// Whether a `details` entry was applied for the photo: its file was read for them (even
  /// if it said nothing).
  package func hasDetails(_ id: BlobID) -> Bool {
    position(of: id).map { detailStamps[$0] != nil } ?? (unlistedDetailStamps[id] != nil)
  }

  func isSelected(_ id: BlobID) -> Bool {
    selections.isEmpty ? false : selections[id]?.selected ?? false
  }

  /// The positions in `list` of the photos in list order (by order, then by id); nil when
  /// that is the list itself.
  private func orderedPositions() -> [Int]? {
    if listIsOrdered && holes.isEmpty { return nil }
    var isHole = [Bool](repeating: false, count: list.count)
    for position in holes { isHole[position] = true }
    var kept = list.indices.filter { !isHole[$0] }
    if !listIsOrdered {
      kept.sort { (orders[$0], list.id(at: $0)) < (orders[$1], list.id(at: $1)) }
    }
    return kept
  }

  /// The photos in list order.
  func orderedPhotos() -> [Photo] {
    (orderedPositions() ?? Array(list.indices)).map { Photo(record: list.record(at: $0), order: orders[$0]) }
  }

  package func entries() -> PhotoEntries {
    orderedPositions().map { list.picking($0) } ?? list
  }

  /// Takes the photos listed since its last call into `importsOfList`, while that is valid.
  mutating func findImportsOfListed() {
    guard listIsOrdered && holes.isEmpty else { return }
    importsOfList.append(from: list)
  }

  /// `entries()`, with the imports of one photo `findImportsOfListed` found among their first
  /// photos if still valid (the catalog takes in the rest), handed over: not kept to be copied.
  mutating func takeEntriesWithImportsFound() -> (entries: PhotoEntries, imports: DuplicateImports?) {
    defer { importsOfList = DuplicateImports() }
    guard let positions = orderedPositions() else { return (list, importsOfList) }
    return (list.picking(positions), nil)
  }

  /// Makes room for `count` photos at once (a snapshot says how many it holds, roughly).
  mutating func reserveCapacity(_ count: Int) {
    list.reserveCapacity(count)
    orders.reserveCapacity(count)
    detailStamps.reserveCapacity(count)
    let ids = list.photoIDs
    index.reserveCapacity(count) { ids[$0] }
  }

  /// The fewest entries that rebuild this state: what a snapshot holds.
  package func compacted() -> [JournalEntry] {
    var result: [JournalEntry] = []
    result.reserveCapacity(2 * photoCount + selections.count + unlistedDetailStamps.count + deleted.count)
    // Each photo's details right after it: a snapshot's reader finds their photo without a
    // lookup (`applySnapshotItem`).
    for position in orderedPositions() ?? Array(list.indices) {
      let record = list.record(at: position)
      result.append(.added(record, order: orders[position]))
      if let stamp = detailStamps[position] {
        result.append(.details(record.id, PhotoDetails(of: record), stamp: stamp))
      }
    }
    for (id, selection) in selections.sorted(by: { $0.key < $1.key }) {
      result.append(.selection(id, selected: selection.selected, stamp: selection.stamp))
    }
    for (id, stamp) in unlistedDetailStamps.sorted(by: { $0.key < $1.key }) {
      result.append(.details(id, unlistedDetails[id] ?? PhotoDetails(), stamp: stamp))
    }
    for (id, identifier) in liveIdentifiers.sorted(by: { $0.key < $1.key }) {
      result.append(.liveIdentifier(id, identifier: identifier))
    }
    result += compactedTrash()
    result += compactedOffloadRemote()
    for (id, naming) in recordedNames.merged().sorted(by: { $0.key < $1.key }) {
      result.append(.shownName(id, name: naming.name, stamp: naming.stamp))
    }
    for id in deleted.sorted() { result.append(.deleted(id)) }
    result += albumState.compacted(leavingOut: deleted)
    return result
  }
}
