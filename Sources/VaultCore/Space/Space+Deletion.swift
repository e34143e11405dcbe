import Foundation

// Deleting photos, and removing the blobs of photos the journal says were deleted.
extension Space {
  /// Removes photos, originals and thumbnails. The index is written first, so a crash
  /// leaves at worst orphan blobs, never an index entry without its photo; thumbnails go
  /// before originals, so that an orphan original without a thumbnail is known to be a
  /// delete cut short (the next writer removes it) and not an import cut short. In format 2
  /// the journal's deletion names them, so the next writer removes them whatever is left.
  /// Exactly `ids` go: a Live Photo's two halves when the caller names both (as the
  /// question showed them), one when it names one (`PhotoBrowser.delete(_:of:)`). Pairs are not
  /// derived again here: a half paired since the question was asked was not shown. Every
  /// import of a photo goes with it (`DuplicateImports`): they are the same file, shown as
  /// one, so deleting it on one copy deletes each copy's import once they meet.
  func deletePhotos(ids: Set<BlobID>) throws {
    try deleteExactly(withEveryImport(ids))
  }

  /// Removes exactly the photos `ids`, no other import of them: what Recently Deleted deletes
  /// for good, where a listed import of the same file on another copy is not in the trash.
  func deleteExactly(_ ids: Set<BlobID>) throws {
    // Only the deletions are written (not a comparison of the whole list).
    try record(entries.photoIDs.lazy.filter(ids.contains).map { JournalEntry.deleted($0) })
    for id in ids { unlink(thumbPath(id)) }
    try syncDirectory(thumbDirectory)
    for id in ids { unlink(photoPath(id)) }
    try syncDirectory(photoDirectory)
    try removeStubs(of: ids)
  }

  /// Whether the journal says this photo was deleted (its blobs are leftovers).
  func wasDeleted(_ id: BlobID) -> Bool {
    journal?.state.deleted.contains(id) ?? false
  }

  func removeBlobsOfDeletedPhotos() {
    guard let journal else { return }
    removeBlobs(of: journal.state.deleted)
  }

  /// Removes the blobs of deleted photos that a sync engine may have brought back (see
  /// `SpaceJournal.deletionsToSettle`), so that a writer leaves a merged copy that verifies.
  func removeBlobsBroughtBack() {
    guard let journal else { return }
    removeBlobs(of: journal.deletionsToSettle)
  }

  /// Not flushed: a removal that a power cut undoes is made again by a later writer or by
  /// `verify --repair`, and the journal lists none of these photos meanwhile.
  private func removeBlobs(of ids: Set<BlobID>) {
    for id in ids {
      unlink(thumbPath(id))
      unlink(photoPath(id))
      unlink(blobs.stubPath(id))
    }
  }
}
