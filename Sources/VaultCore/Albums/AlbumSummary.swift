import Foundation

/// An album as `vault album list` shows it: its name, how many photos it holds, and its
/// newest photo (the one with the latest date, see `PhotoDates`).
public struct AlbumSummary: Equatable, Sendable {
  public let name: String
  public let count: Int
  /// Nil for an empty album.
  public let newest: PhotoModel?
  /// The newest photo's date, in nanoseconds since 1970 UTC.
  public let newestDate: Int64?
}

extension Space {
  /// Every album, in name order, with its newest photo. Dates without a UTC offset are read
  /// in `zone`.
  public func albumSummaries(zone: TimeZone = .current) -> [AlbumSummary] {
    let albums = self.albums
    if albums.isEmpty { return [] }
    let dates = PhotoDates.of(entries, zone: zone)
    var positions: [BlobID: Int] = [:]
    for (position, entry) in entries.enumerated() { positions[entry.record.id] = position }
    return albums.map { album in
      let newest = album.photoIDs.compactMap { positions[$0] }.max { (dates[$0], $0) < (dates[$1], $1) }
      return AlbumSummary(
        name: album.name, count: album.count, newest: newest.map { catalog.item(at: $0) },
        newestDate: newest.map { dates[$0] })
    }
  }
}
