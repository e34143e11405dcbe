import Foundation

/// What `vault info` says of an unlocked space.
public struct SpaceSummary: Equatable, Sendable {
  public var photos: Int
  public var selected: Int
  /// The originals' own bytes, as imported.
  public var originalBytes: Int64
  /// What the photos' blobs (originals and thumbnails) take: encrypted, and padded to
  /// their Padmé bucket, as anyone with a copy of the folder sees them.
  public var storedBytes: Int64
}

extension Space {
  /// Counts the photos and their bytes; each blob's size is read from the file system.
  public func summary() -> SpaceSummary {
    var summary = SpaceSummary(photos: entries.count, selected: 0, originalBytes: 0, storedBytes: 0)
    var info = stat()
    for entry in entries {
      if entry.selected { summary.selected += 1 }
      summary.originalBytes += entry.record.bytes
      for path in [photoPath(entry.record.id), thumbPath(entry.record.id)] where stat(path, &info) == 0 {
        summary.storedBytes += Int64(info.st_size)
      }
    }
    return summary
  }
}
