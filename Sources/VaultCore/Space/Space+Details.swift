import Foundation

// The date taken and camera read from a photo's file, kept in the journal.
extension Space {
  /// Whether the photo's file has been read for its date taken and camera (at its import,
  /// or since); photos imported before vault read them have not. False while the journal
  /// is damaged, and in format 1 (a writer upgrades it first).
  func hasDetails(_ id: BlobID) -> Bool {
    journal?.state.hasDetails(id) ?? false
  }

  /// Records details read from the files of listed photos that have none yet (others are
  /// passed over: another command may have read them, or deleted the photo, meanwhile).
  /// Returns how many were recorded.
  @discardableResult
  func recordDetails(_ found: [BlobID: PhotoDetails]) throws -> Int {
    precondition(access == .write, "the space was opened read-only")
    // A format-1 index rebuilt by a repair has no journal yet: the next writer upgrades it.
    guard let journal, indexDamage == nil else { return 0 }
    let listed = Set(entries.photoIDs.lazy.filter { found[$0] != nil })
    let stamp = journal.state.nextStamp(now: Timestamp.now().nanosecondsSince1970)
    let changes = found.filter { listed.contains($0.key) && !journal.state.hasDetails($0.key) }
      .sorted { $0.key < $1.key }
      .map { JournalEntry.details($0.key, $0.value, stamp: stamp) }
    guard !changes.isEmpty else { return 0 }
    try journal.append(changes)
    var updated = entries
    for (position, id) in entries.photoIDs.enumerated() {
      guard found[id] != nil, let photo = journal.state.photo(id) else { continue }
      updated.setRecord(photo.record, at: position)
    }
    publish(updated)
    compactJournalIfDue()
    return changes.count
  }

  /// Records details that showing photos read from their files, for a space opened to
  /// read, if the space is free now: never waits for another command and never fails (the
  /// details are read again next time). Returns whether they were recorded.
  @discardableResult
  func recordDetailsIfFree(_ found: [BlobID: PhotoDetails]) -> Bool {
    guard !found.isEmpty else { return true }
    return (try? change(waitingAtMost: 0) { writer in try writer.recordDetails(found) }) != nil
  }
}
