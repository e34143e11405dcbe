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

  /// Brings back every photo of Recently Deleted; returns the names of its items. What a
  /// repair does once it dropped journal records it could not read: one of them may have
  /// been a restore, and an item left in the trash would then be deleted for good.
  func restoreAllOfTrash() throws -> [String] {
    let items = catalog.trashItems
    let trashed = Set(catalog.tables.trash.deletedAt.keys)
    guard !trashed.isEmpty else { return [] }
    try markTrashed(trashed, trashed: false)
    return items.map(\.photo.record.name)
  }

  /// Deletes for good the photos `ids` that are still in Recently Deleted when the write
  /// begins, and no other import of them (a listed import on another copy stays). Returns
  /// those of `ids` that were no longer there (restored meanwhile): kept.
  public func deleteTrashedForGood(ids: Set<BlobID>) throws -> Set<BlobID> {
    try writing { writer in
      let trash = writer.catalog.tables.trash
      let doomed = ids.filter(trash.holds)
      try writer.deleteExactly(doomed)
      return ids.subtracting(doomed)
    }
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

  /// Deletes for good the photos whose own mark has been in Recently Deleted longer than
  /// the space's retention plus its grace at `now` (nanoseconds since 1970): what every
  /// writer does first; nothing when `now` is more than a day behind the space's latest
  /// stamp (`TrashExpiryHold`). A listed import of the same file, or a Live half not in the trash,
  /// stays. Returns the items that went, each with the name `vault trash` showed it under
  /// (`ShownFileNames.item`), for the command to name: once they are gone, the catalog no
  /// longer knows it.
  @discardableResult
  func expireTrash(now: Int64 = Timestamp.now().nanosecondsSince1970) throws -> [(
    item: TrashItem, name: String
  )] {
    guard let keep = catalog.trashRetention.nanoseconds else { return [] }
    let (cutoff, overflow) = now.subtractingReportingOverflow(keep + TrashRetention.graceNanoseconds)
    guard !overflow else { return [] }
    let expired = catalog.trashedBefore(cutoff)
    guard !expired.isEmpty else { return [] }
    if let latest = journal?.state.lastStamp, latest > now &+ TrashExpiryHold.clockTolerance {
      trashExpiryHold = TrashExpiryHold(
        dueCount: expired.count, latestStamp: Timestamp(nanosecondsSince1970: latest))
      return []
    }
    let items = catalog.trashItems.filter { $0.files.contains(where: expired.contains) }
    let names = ShownFileNames(catalog.shownNames(of: items.flatMap(\.photo.records)))
    let named = items.map { (item: $0, name: names.item($0.photo)) }
    try deleteExactly(expired)
    return named
  }
}

/// Expiry held back: the space holds a stamp more than a day ahead of this machine's clock
/// (a clock set ahead, here or on a synced copy, or this one set back), so that clock cannot
/// tell how long an item has been in Recently Deleted. Deleting for good waits until the
/// clock passes that stamp; nothing is lost meanwhile.
public struct TrashExpiryHold: Sendable {
  static let clockTolerance = TrashRetention.dayNanoseconds
  /// How many files were due by this clock.
  public let dueCount: Int
  /// The space's latest stamp.
  public let latestStamp: Timestamp
}
