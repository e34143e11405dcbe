/// What a space holds, folded from its journal: the photos, the deletions, the selections.
/// Applying an entry is commutative and idempotent (a set of additions, a set of deletions
/// that wins over them, and a latest-wins selection per photo), so the state of merged
/// copies does not depend on the order their files are read in.
struct SpaceState {
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

  private(set) var photos: [BlobID: Photo] = [:]
  private(set) var deleted: Set<BlobID> = []
  /// Kept for photos not (yet) added too: in merged copies a selection can be read before
  /// the photo's addition.
  private(set) var selections: [BlobID: Selection] = [:]
  /// The largest order of any photo ever added here, so that a new photo goes last.
  private(set) var lastOrder: Int64 = .min

  init() {}

  /// A state that lists `entries` in their order, the selected ones selected at `stamp`:
  /// format 1's index on an upgrade, or an index rebuilt by `verify --repair`.
  init(listing entries: [IndexEntry], selectedAt stamp: Int64) {
    var order = Int64.min
    for entry in entries {
      order = max(entry.record.importedAt.nanosecondsSince1970, Self.after(order))
      apply(.added(entry.record, order: order))
      if entry.selected { apply(.selection(entry.record.id, selected: true, stamp: stamp)) }
    }
  }

  /// The order just after `order` (saturating).
  private static func after(_ order: Int64) -> Int64 {
    order == .min || order == .max ? order : order + 1
  }

  mutating func apply(_ entry: JournalEntry) {
    switch entry {
    case .added(let record, let order):
      lastOrder = max(lastOrder, order)
      guard !deleted.contains(record.id) else { return }
      // The same photo added twice (a writer's record and a repair's adoption of its blob):
      // the smaller order wins, whichever is read first.
      if let existing = photos[record.id], existing.order <= order { return }
      photos[record.id] = Photo(record: record, order: order)
    case .deleted(let id):
      deleted.insert(id)
      photos[id] = nil
      selections[id] = nil
    case .selection(let id, let selected, let stamp):
      guard !deleted.contains(id) else { return }
      let selection = Selection(selected: selected, stamp: stamp)
      if let existing = selections[id], !selection.supersedes(existing) { return }
      selections[id] = selection
    }
  }

  func isSelected(_ id: BlobID) -> Bool { selections[id]?.selected ?? false }

  /// The ids in list order: by order, then by id. (Sorting plain keys, not photos, keeps a
  /// big space's sort free of reference counting.)
  func orderedIDs() -> [BlobID] {
    var keys = photos.map { (order: $0.value.order, id: $0.key) }
    keys.sort { ($0.order, $0.id) < ($1.order, $1.id) }
    return keys.map(\.id)
  }

  /// The photos in list order.
  func orderedPhotos() -> [Photo] {
    orderedIDs().map { photos[$0]! }
  }

  func entries() -> [IndexEntry] {
    orderedIDs().map { IndexEntry(record: photos[$0]!.record, selected: isSelected($0)) }
  }

  /// The fewest entries that rebuild this state: what a snapshot holds.
  func compacted() -> [JournalEntry] {
    var result: [JournalEntry] = []
    result.reserveCapacity(photos.count + selections.count + deleted.count)
    for photo in orderedPhotos() { result.append(.added(photo.record, order: photo.order)) }
    for (id, selection) in selections.sorted(by: { $0.key < $1.key }) {
      result.append(.selection(id, selected: selection.selected, stamp: selection.stamp))
    }
    for id in deleted.sorted() { result.append(.deleted(id)) }
    return result
  }

  /// The order a photo added now takes: the time, or just after the last photo if the
  /// clock is behind it.
  func nextOrder(now: Int64) -> Int64 {
    max(now, Self.after(lastOrder))
  }
}
