import Foundation

// Recently Deleted: a deletion is a mark with a time in the journal; the files stay until
// the trash is emptied or the mark is older than the space's retention.
extension Space {
  /// Moves photos to Recently Deleted: exactly `ids` (a Live Photo's halves as the question
  /// named them) and every import of each, as `deletePhotos` deletes them.
  func trashPhotos(ids: Set<BlobID>) throws {
    try markTrashed(withEveryImport(ids), trashed: true)
  }

  /// Brings photos back from Recently Deleted, with their albums and selection (which
  /// trashing left alone).
  public func restorePhotos(ids: Set<BlobID>) throws {
    try writing { try $0.markTrashed($0.withEveryImport(ids), trashed: false) }
  }

  /// Deletes photos of Recently Deleted for good: the existing deletion, blobs and all.
  public func deleteTrashedForGood(ids: Set<BlobID>) throws {
    try writing { try $0.deletePhotos(ids: ids) }
  }

  /// Sets how long Recently Deleted keeps photos, for every copy of the space.
  public func setTrashRetention(_ retention: TrashRetention) throws {
    try writing { writer in
      let stamp = try writer.requireJournal().state.nextStamp(now: Timestamp.now().nanosecondsSince1970)
      try writer.record([.spaceSetting(.trashRetention(retention), stamp: stamp)])
    }
  }

  private func markTrashed(_ ids: Set<BlobID>, trashed: Bool) throws {
    let journal = try requireJournal()
    let stamp = journal.state.nextStamp(now: Timestamp.now().nanosecondsSince1970)
    let marks = journal.state.trashMarks
    // Only photos the space has, and only what changes.
    let changing = entries.photoIDs.filter { ids.contains($0) && (marks[$0]?.selected ?? false) != trashed }
    try record(changing.map { .trashed($0, trashed: trashed, stamp: stamp) })
  }

  /// Deletes for good the photos that have been in Recently Deleted longer than the
  /// space's retention at `now` (nanoseconds since 1970): what every writer does first.
  /// Returns how many files went.
  @discardableResult
  func expireTrash(now: Int64 = Timestamp.now().nanosecondsSince1970) throws -> Int {
    guard let keep = catalog.trashRetention.nanoseconds else { return 0 }
    let (cutoff, overflow) = now.subtractingReportingOverflow(keep)
    guard !overflow else { return 0 }
    let expired = catalog.trashedBefore(cutoff)
    guard !expired.isEmpty else { return 0 }
    try deletePhotos(ids: expired)
    return expired.count
  }
}
