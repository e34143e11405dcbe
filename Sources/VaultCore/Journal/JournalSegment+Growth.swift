import Foundation

/// How a copy of a journal segment found in another folder compares with the space's own
/// (see `Space.adoptFilesLeftByRenames`): a command on another copy may have appended
/// records to it after a password change renamed the space's folder. Anyone with the vault
/// folder can also make such a copy, as long as they like (a sparse file costs them nothing),
/// so both are read a piece at a time and never whole.
extension JournalSegment {
  enum Growth: Equatable {
    /// The copy is the space's segment with more whole records of the space after it.
    case grew
    /// The copy is no longer than the space's: it has nothing the space lacks.
    case notLonger
    /// The copy is longer but adds nothing the space can take: why, in a few words.
    case refused(String)
  }

  /// How much of a file is compared at a time.
  static let comparisonChunk = 1 << 16

  /// Whether the segment `incoming` (named `j-<id>`, like `existing`) is `existing` with more
  /// records after it that authenticate with the space's journal `key`. A torn tail after
  /// them is kept, as in any segment; zeros or damage alone add nothing.
  static func growth(of incoming: String, over existing: String, id: BlobID, key: SecureBytes) -> Growth {
    do {
      let old = try SegmentFile(path: existing)
      let new = try SegmentFile(path: incoming)
      guard new.size > old.size else { return .notLonger }
      guard new.size <= fileLimit else { return .refused("it is larger than any segment vault writes") }
      guard try new.begins(with: old) else { return .refused("it does not begin with the space's copy") }
      let had = try read(path: existing, id: id, key: key) { _ in }.records
      let has = try read(path: incoming, id: id, key: key) { _ in }.records
      guard has > had else { return .refused("what it adds to the space's copy is no whole record") }
      return .grew
    } catch {
      return .refused("it cannot be read (\(error))")
    }
  }
}

extension SegmentFile {
  /// Whether this file's first bytes are all of `other`'s, compared a chunk at a time.
  func begins(with other: SegmentFile) throws -> Bool {
    guard size >= other.size else { return false }
    var offset = 0
    while offset < other.size {
      let count = min(JournalSegment.comparisonChunk, other.size - offset)
      guard try bytes(at: offset, count: count) == other.bytes(at: offset, count: count) else { return false }
      offset += count
    }
    return true
  }
}
