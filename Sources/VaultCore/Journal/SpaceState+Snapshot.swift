/// A snapshot applied to a state: its photos listed undecoded (see `applySnapshotItem`).
extension SpaceState {
  /// Items of a snapshot applied together (see `SnapshotApplication.flush`).
  static let snapshotWindow = 64

  /// A snapshot whose entries end where Padmé padding would not: damage.
  struct SnapshotNotPadded: Error {}

  /// Applies every entry of `snapshot` (its plaintext whole: entries, the end mark,
  /// padding), or none: a damaged snapshot adds nothing (not even to a salvage). With
  /// `step`, its bytes are read that many at a time, as a big snapshot's are while it is
  /// decrypted (for tests and the fuzz target). Throws `JournalDecodingError` for the first
  /// malformed entry, `SnapshotNotPadded`.
  package mutating func applySnapshot(_ snapshot: SnapshotBytes, inSteps step: Int? = nil) throws {
    var (scanner, application) = (SnapshotScanner(), SnapshotApplication(applyingTo: self))
    try snapshot.withBytes { bytes in
      if let step {
        for count in stride(from: max(1, step), to: bytes.count, by: max(1, step)) {
          application.apply(
            try scanner.scan(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), isFinal: false), of: snapshot
          )
        }
      }
      application.apply(try scanner.scan(bytes, isFinal: true), of: snapshot)
    }
    self = application.state
  }

  /// A snapshot's entries applied as they are read (see `SnapshotScanner`) to a state of its
  /// own, a copy of the one it started from: the copy is the outcome only once the whole
  /// snapshot read well, its end mark and padding too.
  package struct SnapshotApplication {
    package private(set) var state: SpaceState
    private var window: [SnapshotPhotoItem] = []
    /// The names read and not applied yet: applied together (`SpaceState.applyShownNames`).
    private var names: [(id: BlobID, naming: AlbumState.Naming)] = []
    /// The photos the state listed before, and those it has room for.
    private let listedBefore: Int
    private var reserved = 0
    private var reservedNames = false

    package init(applyingTo state: SpaceState) {
      self.state = state
      listedBefore = state.photoCount
      window.reserveCapacity(SpaceState.snapshotWindow)
    }

    /// Applies `items`, read from `snapshot`'s bytes that are there (`count`), in order.
    package mutating func apply(_ items: [SnapshotItem], of snapshot: SnapshotBytes) {
      reserveForPhotos(in: snapshot)
      for item in items {
        switch item {
        case .added(let id, let order, let at): window.append(SnapshotPhotoItem(.added, id, order, at))
        case .details(let id, let stamp, let at): window.append(SnapshotPhotoItem(.details, id, stamp, at))
        case .shownName(let id, let name, let stamp):
          // Names and photos change apart: a name waits for the others, not for the photos.
          names.append((id, AlbumState.Naming(name: name, stamp: stamp)))
        case .other(let entry):
          // In the snapshot's order.
          flush(snapshot)
          state.apply(entry)
        }
        if window.count == SpaceState.snapshotWindow { flush(snapshot) }
      }
      flush(snapshot)
      // Found here, while the next chunk is decrypted, rather than by the catalog after the
      // last: ~5 ms of a big space's open, off its end.
      state.findImportsOfListed()
    }

    /// Room for the photos the snapshot can hold, judged from its bytes decrypted so far
    /// (they authenticated; its file's size did not: a file grown by anyone who can write the
    /// folder made every open reserve room for millions), and made four times that each time
    /// they outgrow it: the list and its index grow and rehash a few times, not at every
    /// doubling.
    private mutating func reserveForPhotos(in snapshot: SnapshotBytes) {
      let held = snapshot.count / JournalEntry.addedFixedLength
      guard listedBefore + held > reserved else { return }
      reserved = listedBefore + min(snapshot.capacity, 4 * snapshot.count) / JournalEntry.addedFixedLength
      state.reserveCapacity(reserved)
    }

    /// Room for a name for every photo listed, at the snapshot's first name: a snapshot
    /// lists its names together, after its photos (`compacted`), and most photos have one.
    /// Made once: 100,000 names inserted one by one rehashed them at every doubling, a
    /// third of the cost of opening a big space.
    private mutating func reserveForNames() {
      guard !reservedNames else { return }
      reservedNames = true
      state.reserveCapacityForNames(state.photoCount)
    }

    /// Applies the items read so far; the index's slots for their photos are read together
    /// first (`PositionIndex.warm`), the names together after them.
    private mutating func flush(_ snapshot: SnapshotBytes) {
      state.warmIndex(for: window)
      for item in window { state.applySnapshotItem(item, of: snapshot) }
      window.removeAll(keepingCapacity: true)
      guard !names.isEmpty else { return }
      reserveForNames()
      state.applyShownNames(names)
      names.removeAll(keepingCapacity: true)
    }
  }
}

/// A snapshot's `added` or `details` entry as read, located in its bytes: a plain value
/// (`SnapshotItem` is not, for its other entries), so that a window of them is copied
/// without a retain or a release.
struct SnapshotPhotoItem {
  enum Kind { case added, details }
  let kind: Kind
  let id: BlobID
  /// An `added` entry's order, a `details` entry's stamp.
  let orderOrStamp: Int64
  /// Where its type byte is in the snapshot.
  let offset: Int

  init(_ kind: Kind, _ id: BlobID, _ orderOrStamp: Int64, _ offset: Int) {
    (self.kind, self.id, self.orderOrStamp, self.offset) = (kind, id, orderOrStamp, offset)
  }
}
