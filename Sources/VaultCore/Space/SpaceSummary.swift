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
      // Saturating: the records' sizes are bounded when read, the files' are not.
      summary.originalBytes = Self.adding(summary.originalBytes, entry.record.bytes)
      for path in [photoPath(entry.record.id), thumbPath(entry.record.id)] where stat(path, &info) == 0 {
        summary.storedBytes = Self.adding(summary.storedBytes, Int64(info.st_size))
      }
    }
    return summary
  }

  /// `total + more`, or `Int64.max` past it.
  private static func adding(_ total: Int64, _ more: Int64) -> Int64 {
    let (sum, overflow) = total.addingReportingOverflow(more)
    return overflow ? .max : sum
  }
}
