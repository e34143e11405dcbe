/// Reads a snapshot's entries as its bytes come, a part at a time: each entry is checked
/// whole and located (see `SnapshotItem`), once every byte of it is there.
struct SnapshotScanner {
  /// Where the next entry starts, and its number (for errors).
  private var offset = 0
  private var number = 1

  /// The entries that are whole in `bytes` (the snapshot's first bytes) and were not read
  /// yet; with `isFinal` (`bytes` is the whole plaintext), every entry to the end mark, whose
  /// padding is then checked. Throws `JournalDecodingError` for the first malformed entry,
  /// `SpaceState.SnapshotNotPadded`.
  mutating func scan(_ bytes: UnsafeRawBufferPointer, isFinal: Bool) throws -> [SnapshotItem] {
    let end = isFinal ? nil : Self.endOfWholeEntries(in: bytes, from: offset)
    if let end, end == offset { return [] }
    var items: [SnapshotItem] = []
    // Room for them at once: grown by doubling, a chunk's items were copied a dozen times
    // on the decrypting thread (perf: 5 ms of its ~50 opening the 100,000-photo space).
    items.reserveCapacity(((end ?? bytes.count) - offset) / Self.typicalEntryLength)
    let reached = try JournalEntry.scan(
      bytes, from: offset, to: end, firstNumber: number, reading: SnapshotItem.read
    ) { items.append($0) }
    (offset, number) = (reached, number + items.count)
    if isFinal, bytes.count != Padme.paddedLength(reached) { throw SpaceState.SnapshotNotPadded() }
    return items
  }

  /// About the length of a file's name entry, the shortest of the entries a snapshot holds
  /// one for each photo of.
  private static let typicalEntryLength = 40

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
}
