/// Recently Deleted as a catalog shows it: its items in its own numbering (most recently
/// deleted first), each with when it was deleted and when it goes for good.
extension SpaceCatalog {
  /// The items in Recently Deleted, in its order (its numbers count from 1 in it).
  public var trashItems: [TrashItem] {
    tables.trash.items.map(trashItem(at:))
  }

  /// How long the space keeps deleted photos.
  public var trashRetention: TrashRetention { tables.trash.retention }

  private func trashItem(at position: Int) -> TrashItem {
    let entry = entries[position]
    let id = entry.record.id
    var model = PhotoModel(record: entry.record, folders: folders, isSelected: false, albums: [])
    model.motion = tables.trash.pairs.motionOfStill[id].flatMap(trashedRecord)
    let files = model.records.flatMap { tables.imports.all(of: $0.id) }
    return TrashItem(
      photo: model, files: files.filter(tables.trash.holds),
      deletedAt: Timestamp(nanosecondsSince1970: tables.trash.deletedAt[id] ?? 0),
      retention: tables.trash.retention)
  }

  /// The record of the photo `id` if it is in the trash.
  func trashedRecord(_ id: BlobID) -> PhotoRecord? {
    tables.trash.positions[id].map(entries.record(at:))
  }

  /// The ids of the photos in the trash that were moved there before `cutoff` (nanoseconds
  /// since 1970): what expires.
  func trashedBefore(_ cutoff: Int64) -> Set<BlobID> {
    Set(tables.trash.deletedAt.lazy.filter { $0.value < cutoff }.map(\.key))
  }
}

/// One item of Recently Deleted.
public struct TrashItem: Sendable {
  /// As it was listed (a Live Photo with its motion).
  public let photo: PhotoModel
  /// Every file of it in the trash (both halves, every import): what a restore brings back.
  public let files: [BlobID]
  public let deletedAt: Timestamp
  let retention: TrashRetention

  /// When it is deleted for good; nil when the space keeps deleted photos until emptied.
  public var expiresAt: Timestamp? {
    retention.nanoseconds.map { Timestamp(nanosecondsSince1970: deletedAt.nanosecondsSince1970 &+ $0) }
  }

  /// When a writer deletes it for good: its retention and the grace past it (a due item
  /// stays that long for a restore made on another copy to arrive); nil when it never expires.
  public var deletedForGoodFrom: Timestamp? {
    expiresAt.map {
      Timestamp(nanosecondsSince1970: $0.nanosecondsSince1970 &+ TrashRetention.graceNanoseconds)
    }
  }

  /// Days left before it goes, counting a day begun (30 right after a deletion kept 30
  /// days, 1 on its last day, 0 once due: a write deletes it once the grace is past too); nil when it never
  /// expires.
  public func daysLeft(now: Timestamp = .now()) -> Int? {
    guard let expiresAt else { return nil }
    let day = TrashRetention.dayNanoseconds
    let left = expiresAt.nanosecondsSince1970 &- now.nanosecondsSince1970
    return left <= 0 ? 0 : Int((left - 1) / day + 1)
  }
}

extension Timestamp {
  /// The moment a journal stamp names (nanoseconds since 1970).
  init(nanosecondsSince1970 value: Int64) {
    let (seconds, remainder) = value.quotientAndRemainder(dividingBy: 1_000_000_000)
    self.init(
      seconds: remainder < 0 ? seconds - 1 : seconds,
      nanoseconds: Int32(remainder < 0 ? remainder + 1_000_000_000 : remainder))
  }
}
