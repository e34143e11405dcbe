/// A snapshot applied to a state: its photos listed undecoded (see `applySnapshotItem`).
extension SpaceState {
  /// Items of a snapshot applied together (see `applyChecked`).
  static let snapshotWindow = 64

  /// A snapshot whose entries end where Padmé padding would not: damage.
  struct SnapshotNotPadded: Error {}

  /// Applies every entry of `snapshot` (its plaintext: entries, the end mark, padding) once
  /// the whole is known to be sound, so that a damaged snapshot adds nothing (not even to a
  /// salvage). Its entries were checked as it was decrypted (a big one, see
  /// `SnapshotChecker`) or are checked here first; then they are applied in order.
  /// Throws `JournalDecodingError` for the first malformed entry, `SnapshotNotPadded`.
  mutating func applySnapshot(_ snapshot: SnapshotBytes) throws {
    let length =
      try snapshot.checkedLength
      ?? snapshot.withBytes { buffer in
        try JournalEntry.scan(buffer, from: 0, to: nil, firstNumber: 1, reading: SnapshotItem.read) { _ in }
      }
    guard snapshot.count == Padme.paddedLength(length) else { throw SnapshotNotPadded() }
    applyChecked(snapshot)
  }

  /// Applies the entries of `snapshot`, checked already, each item's few fields read in
  /// place. A window of items at a time: the index's slots for its photos are read together
  /// first (`PositionIndex.warm`).
  private mutating func applyChecked(_ snapshot: SnapshotBytes) {
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
