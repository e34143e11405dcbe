/// A snapshot applied to a state: its photos listed undecoded (see `applySnapshotItem`).
extension SpaceState {
  /// Items of a snapshot applied together (see `SnapshotApplication.flush`).
  static let snapshotWindow = 64

  /// A snapshot whose entries end where Padmé padding would not: damage.
  struct SnapshotNotPadded: Error {}

  /// Applies every entry of `snapshot` (its plaintext whole: entries, the end mark,
  /// padding), or none: a damaged snapshot adds nothing (not even to a salvage). With
  /// `step`, its bytes are taken that many at a time, as a big snapshot's are while it is
  /// decrypted (for tests and the fuzz target). Throws `JournalDecodingError` for the first
  /// malformed entry, `SnapshotNotPadded`.
  mutating func applySnapshot(_ snapshot: SnapshotBytes, inSteps step: Int? = nil) throws {
    var application = SnapshotApplication(applyingTo: self)
    if let step {
      for count in stride(from: max(1, step), to: snapshot.count, by: max(1, step)) {
        try application.take(snapshot, upTo: count, isFinal: false)
      }
    }
    try application.take(snapshot, upTo: snapshot.count, isFinal: true)
    self = application.state
  }

  /// A snapshot's entries read and applied as its bytes come (see `SnapshotDecryption`) to a
  /// state of its own, a copy of the one it started from: the copy is the outcome only once
  /// the whole snapshot read well, its end mark and padding too.
  struct SnapshotApplication {
    private(set) var state: SpaceState
    /// Where the next entry starts, and its number (for errors).
    private var offset = 0
    private var number = 1
    private var window: [SnapshotItem] = []

    init(applyingTo state: SpaceState) {
      self.state = state
      window.reserveCapacity(SpaceState.snapshotWindow)
    }

    /// Reads and applies the entries that are whole in the first `count` bytes of
    /// `snapshot`; with `isFinal`, every entry to the end mark, and checks the padding.
    mutating func take(_ snapshot: SnapshotBytes, upTo count: Int, isFinal: Bool) throws {
      try snapshot.withBytes { buffer in
        let available = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        let end = isFinal ? nil : Self.endOfWholeEntries(in: available, from: offset)
        if let end, end == offset { return }
        var read = 0
        let reached = try JournalEntry.scan(
          available, from: offset, to: end, firstNumber: number, reading: SnapshotItem.read
        ) { item in
          read += 1
          window.append(item)
          if window.count == SpaceState.snapshotWindow { flush(snapshot) }
        }
        flush(snapshot)
        (offset, number) = (reached, number + read)
        if isFinal, snapshot.count != Padme.paddedLength(reached) { throw SnapshotNotPadded() }
      }
    }

    /// Where the entries that are whole in `bytes` from `start` end (an entry's length is in
    /// its first bytes).
    private static func endOfWholeEntries(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
      var end = start
      while end < bytes.count, let length = JournalEntry.encodedLength(at: end, in: bytes),
        end + length <= bytes.count
      {
        end += length
      }
      return end
    }

    /// Applies the items read so far; the index's slots for their photos are read together
    /// first (`PositionIndex.warm`).
    private mutating func flush(_ snapshot: SnapshotBytes) {
      state.warmIndex(for: window)
      for item in window { state.applySnapshotItem(item, of: snapshot) }
      window.removeAll(keepingCapacity: true)
    }
  }
}
