import Foundation

// Not verification: the tidy every writer runs after a killed one. It lives here for the
// checks it shares with verify and repair (`checkOriginal`, `placeOrphans`).
extension SpaceVerifier {
  /// Cleans up after writers that were killed; a writer runs it when it takes the space's
  /// exclusive lock (holding it proves that no other writer is at work) and finds a killed
  /// writer's mark: removes temporary files and marks (and format 1's index, in format 2),
  /// and settles orphan blobs. An orphan original with an intact thumbnail is an import cut
  /// short between its blobs and its index: if both authenticate it is listed (or removed,
  /// when the same photo is listed already). The blobs of photos the journal says were
  /// deleted are removed (a delete cut short, or files a sync engine brought back), as is a
  /// thumbnail of no photo. In format 1, an orphan original without a thumbnail is a delete
  /// cut short (delete removes thumbnails first) and is removed. Only orphans are
  /// decrypted; anything else odd is left for `vault verify`. Does nothing while the index
  /// is damaged (every original is then an orphan: that is `verify --repair`'s work).
  func tidyAfterKilledWriters() throws {
    precondition(space.access == .write, "tidying needs the space's exclusive lock")
    guard space.indexDamage == nil else { return }
    let top = contents(of: space.directory, relativeTo: space.directory + "/")
    let photos = contents(of: space.photoDirectory, relativeTo: space.photoDirectory + "/")
    let thumbs = contents(of: space.thumbDirectory, relativeTo: space.thumbDirectory + "/")
    let stubs = contents(of: space.blobs.offloadedDirectory, relativeTo: space.blobs.offloadedDirectory + "/")
    var changed = false
    let journal = journalContents(relativeTo: space.journalDirectory + "/")
    // This writer's own mark stays until it closes the space.
    let ownMark = space.writerMarkName.map { space.directory + "/" + $0 }
    for path in top.temporary.filter({ $0 != ownMark }) + journal.temporary + photos.temporary
      + thumbs.temporary + stubs.temporary
    {
      removeTree(path)
      changed = true
    }
    // Format 1's index beside a journal: an upgrade killed before it removed it (the
    // journal holds every photo it listed).
    if space.formatVersion == 2, unlink(space.indexPath) == 0 { changed = true }
    if try settleOrphanBlobs(photos: photos.ids, thumbs: thumbs.ids) { changed = true }
    if changed {
      try syncDirectory(space.directory)
      try syncDirectory(space.photoDirectory)
      try syncDirectory(space.thumbDirectory)
    }
  }

  /// Removes the blobs of deleted photos and thumbnails of no photo, and lists (or removes,
  /// when they are second copies) orphan originals whose blobs both authenticate; in format
  /// 1, removes orphan originals without a thumbnail. Returns whether it removed anything.
  private func settleOrphanBlobs(photos: [BlobID], thumbs: [BlobID]) throws -> Bool {
    var changed = false
    let listedIDs = Set(space.entries.photoIDs)
    let originals = Set(photos)
    let thumbnails = Set(thumbs)
    // A listed photo's thumbnail stays even without its original: in a synced copy the
    // original may simply not have arrived yet.
    for id in thumbs where space.wasDeleted(id) || (!originals.contains(id) && !listedIDs.contains(id)) {
      unlink(space.thumbPath(id))
      changed = true
    }
    var orphans: [PhotoRecord] = []
    for id in photos where !listedIDs.contains(id) {
      if space.wasDeleted(id) {
        unlink(space.photoPath(id))
        changed = true
        continue
      }
      guard thumbnails.contains(id) else {
        // Format 1 deleted thumbnails first, so this was a delete cut short. Format 2 names
        // deletions in the journal (handled above): here it is an original whose thumbnail
        // a sync engine has not brought yet, or damage, which `vault verify` reports.
        if space.formatVersion == 1 {
          unlink(space.photoPath(id))
          changed = true
        }
        continue
      }
      guard case .intact(let record, _) = checkOriginal(id: id, expected: nil), record.id == id,
        checkThumbnail(record) == nil
      else { continue }
      orphans.append(record)
    }
    var entries = Array(space.entries)
    var seen = listedIDs
    let (adopted, redundant) = placeOrphans(orphans, listed: &entries, seen: &seen)
    if !adopted.isEmpty { try space.saveEntries(entries) }
    for id in redundant {
      unlink(space.thumbPath(id))
      unlink(space.photoPath(id))
      changed = true
    }
    return changed
  }
}
