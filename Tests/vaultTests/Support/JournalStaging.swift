import Foundation

@testable import VaultCore

/// Brings a space's journal to the point where the next change compacts it, as a long
/// history of earlier commands would have: compaction is due past
/// `SpaceJournal.compactionSegmentCount` segments or `compactionMinimumBytes` of them, which
/// takes 128 runs of the binary (half a minute on a loaded machine) or a select of ~40,000
/// photos. Here the test's own process writes the same records through the same
/// `JournalSegmentWriter`, after one key derivation; production code has no knob for it.
enum JournalStaging {
  enum Trigger: CaseIterable {
    /// One one-entry segment per earlier command, up to the segment count limit.
    case segmentCount
    /// One segment holding more than the byte limit (one very large selection change).
    case bytes
  }

  /// Writes selection changes of photo `id` that end with it `selected` (alternating, each
  /// stamped later than the last), enough that the space's next change compacts its
  /// journal. The photo's selection is then `selected`, as if the last change were a
  /// `vault select` or `unselect` run just now.
  static func makeCompactionDue(
    vault: String, password: String, photo id: String, endingSelected selected: Bool, by trigger: Trigger
  ) throws {
    guard let photo = BlobID(hex: id) else { throw VaultError.invalidArgument("not a photo id: \(id)") }
    let space = try Vault.open(at: vault).unlock(
      password: try Password(utf8: Array(password.utf8)), access: .write)
    let names = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory)
    let key = space.master.journalKey()
    let start = Timestamp.now().nanosecondsSince1970
    func change(_ number: Int, of count: Int) -> JournalEntry {
      // The last change leaves the photo `selected`.
      .selection(
        photo, selected: (count - 1 - number) % 2 == 0 ? selected : !selected, stamp: start + Int64(number))
    }
    switch trigger {
    case .segmentCount:
      // With the next command's own segment, one more than the limit.
      let segments = names.filter { $0.hasPrefix(JournalSegment.namePrefix) }.count
      let count = max(1, SpaceJournal.compactionSegmentCount - segments)
      for number in 0..<count {
        try JournalSegmentWriter(directory: space.journalDirectory, key: key).append([
          change(number, of: count)
        ])
      }
    case .bytes:
      let snapshotBytes = names.filter { $0.hasPrefix(SpaceJournal.snapshotPrefix) }.map {
        fileSize(space.journalDirectory + "/" + $0)
      }.reduce(0, +)
      let limit = max(SpaceJournal.compactionMinimumBytes, snapshotBytes / SpaceJournal.compactionFraction)
      var probe = ByteWriter()
      change(0, of: 1).encode(into: &probe)
      let count = limit / probe.output.count + 1
      try JournalSegmentWriter(directory: space.journalDirectory, key: key).append(
        (0..<count).map { change($0, of: count) })
    }
  }
}
