import Dispatch

/// One change to a space, as the journal stores it (docs/FORMAT.md, "Journal entries").
/// Entries are facts that can be applied in any order and any number of times with the same
/// result, so copies of a space changed apart merge by taking the union of their entries.
package enum JournalEntry: Equatable {
  /// A photo was imported. `order` places it in the list (nanoseconds since 1970, at least
  /// one more than every photo the writer knew of).
  case added(PhotoRecord, order: Int64)
  /// A photo was deleted, for good: a later `added` of the same id is ignored.
  case deleted(BlobID)
  /// A photo was selected or unselected at `stamp` (nanoseconds since 1970); the latest
  /// stamp wins, and at equal stamps selecting wins.
  case selection(BlobID, selected: Bool, stamp: Int64)
  /// An album was made or renamed at `stamp`; the latest stamp wins (at equal stamps, the
  /// name whose UTF-8 bytes sort last).
  case albumNamed(AlbumID, name: String, stamp: Int64)
  /// An album was deleted, for good (its photos stay).
  case albumDeleted(AlbumID)
  /// A photo was put in or taken out of an album at `stamp`; the latest stamp wins, and at
  /// equal stamps being in the album wins.
  case albumMembership(AlbumID, photo: BlobID, member: Bool, stamp: Int64)
  /// What a photo's file says of when it was taken and by which camera, as read at
  /// `stamp` (nanoseconds since 1970): at import, or later for a photo imported before
  /// vault read it. The latest stamp wins. An empty one records that the file says nothing,
  /// so that it is not read again.
  case details(BlobID, PhotoDetails, stamp: Int64)
  /// A still or a MOV carries this Live Photo identifier: Apple's content identifier, as its
  /// file says, or one vault gave both halves of a pair it found by name. A listed still and
  /// a listed MOV with the same identifier are one Live Photo (see `LivePairs`). The
  /// smallest identifier given to an id wins, so that merged copies agree.
  case liveIdentifier(BlobID, identifier: String)
  /// A photo was moved to Recently Deleted (`trashed`) or brought back from it at `stamp`;
  /// the latest stamp wins, and at equal stamps moving it wins (see `JournalEntry+Trash`).
  case trashed(BlobID, trashed: Bool, stamp: Int64)
  /// A setting of the space (how long Recently Deleted keeps photos) was changed at `stamp`;
  /// the latest stamp wins.
  case spaceSetting(SpaceSetting, stamp: Int64)
  /// The name the item's file shows under in the mount and in an export (`ShownNames`),
  /// fixed at `stamp` when it was imported, or when a deletion would have moved it. The
  /// latest stamp wins (at equal stamps, the name whose UTF-8 bytes sort last).
  case shownName(BlobID, name: String, stamp: Int64)
  /// The remote the space's offloaded originals are read from (an rclone path, as the user
  /// gave it to `offload`), set at `stamp`; the latest stamp wins (at equal stamps, the
  /// remote whose UTF-8 bytes sort last).
  case offloadRemote(String, stamp: Int64)

  enum TypeCode: UInt8 {
    /// Ends the entries of a record or snapshot; only zero bytes (padding) may follow.
    case end = 0
    case added = 1
    case deleted = 2
    case selection = 3
    case albumNamed = 4
    case albumDeleted = 5
    case albumMembership = 6
    case details = 7
    case liveIdentifier = 8
    case trashed = 9
    case spaceSetting = 10
    case shownName = 11
    case offloadRemote = 12
  }

  /// Whether the entry changes the list of photos or their selection (an album's change
  /// does not).
  var changesPhotoList: Bool {
    switch self {
    case .added, .deleted, .selection, .details, .liveIdentifier, .trashed: return true
    case .albumNamed, .albumDeleted, .albumMembership, .spaceSetting, .shownName, .offloadRemote: return false
    }
  }

  /// Seconds from year 1 to year 9999 (0001-01-01T00:00:00 to 9999-12-31T23:59:59), the
  /// dates EXIF can write.
  static let takenRange: ClosedRange<Int64> = -62_135_596_800...253_402_300_799
  /// How far past the current time a stamp may lie: ten years, in nanoseconds. A new
  /// change is stamped after the latest stamp seen (the hybrid clock), so a stamp far in the
  /// future would make every later change lose to it, and one at the end of 64 bits could
  /// never be passed at all (the selection it sets could not be undone). Ten years leave
  /// room for clocks that were wrong and synced copies, and keep any stamp that is accepted
  /// more than a century away from the end of 64 bits (year 2262).
  static let stampLeeway: Int64 = 10 * 365_25 * 864 * 1_000_000_000

  /// The latest stamp a journal read at `now` (nanoseconds since 1970) accepts.
  static func latestStamp(now: Int64 = Timestamp.now().nanosecondsSince1970) -> Int64 {
    let (sum, overflow) = now.addingReportingOverflow(stampLeeway)
    return overflow ? .max : sum
  }

  /// UTC offsets from -23:59 to +23:59, in minutes.
  static let offsetRange: ClosedRange<Int16> = -1439...1439

  /// Why an entry whose stamp is past `latestStamp` is refused.
  static let futureStamp = "is stamped more than ten years after the current time"
}
