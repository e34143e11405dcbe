import Dispatch
import Synchronization

/// Decoding on several threads, for a big snapshot.
extension JournalEntry {
  /// `decodeAll` on several threads: the entries' boundaries are found first from their
  /// lengths alone (cheap), then slices between them are decoded at once, then handed to
  /// `apply` in order. The same result and the same errors.
  @discardableResult
  package static func decodeAllInParallel(
    _ bytes: UnsafeRawBufferPointer, slices: Int, _ apply: (JournalEntry) -> Void
  ) throws -> Int {
    try scanInParallel(
      bytes, slices: slices,
      reading: { (type, offset, input, stamp) throws(Malformed) in
        try decodeEntry(type, at: offset, from: &input, latestStamp: stamp)
      }, apply)
  }

  /// `scan` of the whole of `bytes` on several threads, as `decodeAllInParallel` decodes.
  static func scanInParallel<Item: Sendable>(
    _ bytes: UnsafeRawBufferPointer, slices: Int,
    reading read: @Sendable (TypeCode, Int, inout ByteReader, Int64) throws(Malformed) -> Item,
    _ apply: (Item) -> Void
  ) throws -> Int {
    let starts = sliceStarts(bytes, slices: slices)
    // The threads only read the bytes, and concurrentPerform returns only once they are all
    // done: the caller's buffer outlives them, which a pointer cannot tell the compiler.
    nonisolated(unsafe) let bytes = bytes
    let decoded = Mutex([DecodedSlice<Item>?](repeating: nil, count: starts.count))
    DispatchQueue.concurrentPerform(iterations: starts.count) { slice in
      var items: [Item] = []
      let end = slice + 1 < starts.count ? starts[slice + 1].offset : nil
      let length = Result {
        try scan(bytes, from: starts[slice].offset, to: end, firstNumber: starts[slice].number, reading: read)
        {
          items.append($0)
        }
      }
      decoded.withLock { $0[slice] = DecodedSlice(length: length, items: items) }
    }
    var length = 0
    for slice in decoded.withLock({ $0 }) {
      guard let slice else { preconditionFailure("concurrentPerform returned before a slice was decoded") }
      length = try slice.length.get()
      for item in slice.items { apply(item) }
    }
    return length
  }

  /// Where each of up to `slices` slices of about equal size starts (its offset, and the
  /// number of its first entry), found by stepping from entry to entry by their lengths.
  /// Damage stops the walk: the slice it falls in names it when decoded.
  static func sliceStarts(_ bytes: UnsafeRawBufferPointer, slices: Int) -> [(offset: Int, number: Int)] {
    var starts: [(offset: Int, number: Int)] = [(0, 1)]
    let target = max(1, bytes.count / slices)
    var offset = 0
    var number = 1
    while offset < bytes.count, starts.count < slices, let length = encodedLength(at: offset, in: bytes) {
      offset += length
      number += 1
      if offset >= target * starts.count && offset < bytes.count { starts.append((offset, number)) }
    }
    return starts
  }

  /// The length of the entry at `offset`, from its type and length fields alone; nil for
  /// the end mark, an unknown type, or an entry cut short.
  static func encodedLength(at offset: Int, in bytes: UnsafeRawBufferPointer) -> Int? {
    /// The big-endian 16-bit length that ends an entry's fixed part of `fixed` bytes.
    func lengthField(_ fixed: Int) -> Int? {
      guard offset + fixed <= bytes.count else { return nil }
      return Int(bytes[offset + fixed - 2]) << 8 | Int(bytes[offset + fixed - 1])
    }
    switch bytes[offset] {
    case TypeCode.added.rawValue:
      guard let nameLength = lengthField(addedFixedLength) else { return nil }
      guard format(code: bytes[offset + addedFormatOffset])?.isVideo == true else {
        return addedFixedLength + nameLength
      }
      let codecLengthAt = offset + addedFixedLength + nameLength + videoTailLength - 1
      guard codecLengthAt < bytes.count else { return nil }
      return addedFixedLength + nameLength + videoTailLength + Int(bytes[codecLengthAt])
    case TypeCode.deleted.rawValue: return 1 + BlobID.length
    case TypeCode.selection.rawValue: return selectionLength
    case TypeCode.albumNamed.rawValue:
      return lengthField(albumNamedFixedLength).map { albumNamedFixedLength + $0 }
    case TypeCode.albumDeleted.rawValue: return albumDeletedLength
    case TypeCode.albumMembership.rawValue: return albumMembershipLength
    case TypeCode.details.rawValue:
      let makeLengthAt = offset + detailsFixedLength - 2
      guard makeLengthAt < bytes.count else { return nil }
      let modelLengthAt = makeLengthAt + 1 + Int(bytes[makeLengthAt])
      guard modelLengthAt < bytes.count else { return nil }
      return detailsFixedLength + Int(bytes[makeLengthAt]) + Int(bytes[modelLengthAt])
    case TypeCode.liveIdentifier.rawValue:
      let lengthAt = offset + liveIdentifierFixedLength - 1
      guard lengthAt < bytes.count else { return nil }
      return liveIdentifierFixedLength + Int(bytes[lengthAt])
    case TypeCode.trashed.rawValue: return trashedLength
    case TypeCode.spaceSetting.rawValue: return spaceSettingLength
    case TypeCode.shownName.rawValue:
      return lengthField(shownNameFixedLength).map { shownNameFixedLength + $0 }
    case TypeCode.offloadRemote.rawValue:
      return lengthField(offloadRemoteFixedLength).map { offloadRemoteFixedLength + $0 }
    default: return nil  // the end mark, or damage the decoder will name
    }
  }
}

/// What one slice of `scanInParallel` read: its entries, and the length up to its end (or
/// the damage it met).
private struct DecodedSlice<Item: Sendable>: Sendable {
  let length: Result<Int, Error>
  let items: [Item]
}
