/// Recently Deleted in the state: a mark per photo (latest stamp wins, at equal stamps
/// moving to the trash wins), and the space's retention (latest stamp wins, at equal stamps
/// the longer one), so that synced copies agree whatever order they read their files in.
extension SpaceState {
  mutating func applyTrashMark(_ mark: Selection, of id: BlobID) {
    lastStamp = max(lastStamp, mark.stamp)
    if !deleted.isEmpty && deleted.contains(id) { return }
    if let existing = trashMarks[id], !mark.supersedes(existing) { return }
    trashMarks[id] = mark
  }

  mutating func applySetting(_ setting: SpaceSetting, stamp: Int64) {
    lastStamp = max(lastStamp, stamp)
    switch setting {
    case .trashRetention(let retention):
      if let existing = retentionSetting {
        let longer = (retention.days ?? .max) > (existing.retention.days ?? .max)
        guard stamp > existing.stamp || (stamp == existing.stamp && longer) else { return }
      }
      retentionSetting = (retention, stamp)
    }
  }

  /// The photos in Recently Deleted, with the time each was moved there (its latest mark).
  var trashed: [BlobID: Int64] {
    var result: [BlobID: Int64] = [:]
    for (id, mark) in trashMarks where mark.selected { result[id] = mark.stamp }
    return result
  }

  /// How long Recently Deleted keeps photos.
  var trashRetention: TrashRetention { retentionSetting?.retention ?? .standard }

  /// Every mark (a restore too, so that a merged copy's older move cannot come back), ids in
  /// byte order, then the retention: what a snapshot keeps of them.
  func compactedTrash() -> [JournalEntry] {
    var result = trashMarks.sorted { $0.key < $1.key }.map { id, mark in
      JournalEntry.trashed(id, trashed: mark.selected, stamp: mark.stamp)
    }
    if let (retention, stamp) = retentionSetting {
      result.append(.spaceSetting(.trashRetention(retention), stamp: stamp))
    }
    return result
  }
}
