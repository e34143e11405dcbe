/// A snapshot applied to a state: its photos listed undecoded (see `applySnapshotItem`).
extension SpaceState {
  /// Items of a big snapshot applied together (see `applySnapshot`).
  static let snapshotWindow = 64

  /// Applies every entry of `snapshot` (its plaintext: entries, the end mark, padding) and
  /// returns the entries' length with the end mark. Throws `JournalDecodingError` for the
  /// first malformed entry, having applied nothing of the snapshot then.
  ///
  /// With more than one slice, the snapshot is checked on that many threads first, keeping
  /// nothing (a list of 200,000 decoded items was most of the memory an open touched), then
  /// applied in order, each item's few fields read in place. One slice checks and applies
  /// each entry in turn, into a copy kept only if the whole snapshot reads.
  mutating func applySnapshot(_ snapshot: SnapshotBytes, slices: Int) throws -> Int {
    try snapshot.withBytes { buffer in
      guard slices > 1 else {
        var applied = self
        let length = try JournalEntry.scan(
          buffer, from: 0, to: nil, firstNumber: 1, reading: SnapshotItem.read
        ) {
          applied.applySnapshotItem($0, of: snapshot)
        }
        self = applied
        return length
      }
      let length = try JournalEntry.scanInParallel(buffer, slices: slices) {
        type, offset, input, latestStamp throws(JournalEntry.Malformed) in
        _ = try SnapshotItem.read(type, at: offset, from: &input, latestStamp: latestStamp)
      } _: { _ in
      }
      applyChecked(snapshot)
      return length
    }
  }

  /// Applies the entries of `snapshot`, checked already (by `SnapshotItem.read`, in a scan of
  /// the whole), each item's few fields read in place. A window of items at a time: the
  /// index's slots for its photos are read together first (`PositionIndex.warm`).
  mutating func applyChecked(_ snapshot: SnapshotBytes) {
    snapshot.withBytes { buffer in
      var (offset, window) = (0, [SnapshotItem]())
      window.reserveCapacity(Self.snapshotWindow)
      repeat {
        window.removeAll(keepingCapacity: true)
        while window.count < Self.snapshotWindow,
          let (item, itemLength) = SnapshotItem.checked(at: offset, in: buffer)
        {
          window.append(item)
          offset += itemLength
        }
        warmIndex(for: window)
        for item in window { applySnapshotItem(item, of: snapshot) }
      } while !window.isEmpty
    }
  }
}
