import Foundation

/// Which photos of a space a command works on, and in what order: those of an album, those
/// whose date (see `PhotoDates`) falls from `since`'s start to `until`'s end, sorted by
/// `sort`. A browser made with a scope (`Space.makeBrowser(perRow:scope:)`) numbers the
/// photos by their place in this list; ids do not change.
public struct PhotoScope: Equatable, Sendable {
  /// An album's name (as `AlbumName.normalized` returns it).
  public var album: String?
  public var since: DatePeriod?
  public var until: DatePeriod?
  public var sort: PhotoSort

  public init(
    album: String? = nil, since: DatePeriod? = nil, until: DatePeriod? = nil,
    sort: PhotoSort = .taken
  ) {
    self.album = album
    self.since = since
    self.until = until
    self.sort = sort
  }

  /// Whether it leaves photos out (rather than only ordering them).
  public var filters: Bool { album != nil || since != nil || until != nil }

  /// The positions (0-based, in `entries`) of the photos in scope, in order. `members` are
  /// the album's photos (none when the album does not exist).
  /// Only the keys scoping and sorting need are read (see `PhotoKeyList`).
  func positions(of entries: some PhotoKeyList, members: Set<BlobID>, zone: TimeZone) -> [Int] {
    var dates: [Int64]?
    let photoDates = {
      if dates == nil { dates = PhotoDates.of(keys: entries, zone: zone) }
      return dates!
    }
    var positions = Array(0..<entries.count)
    if album != nil { positions = positions.filter { members.contains(entries.id(at: $0)) } }
    if since != nil || until != nil {
      let (from, to) = (since?.start ?? .min, until?.end ?? .max)
      let all = photoDates()
      positions = positions.filter { all[$0] >= from && (all[$0] < to || to == .max) }
    }
    return sort.sorted(positions, of: entries, dates: photoDates)
  }
}
