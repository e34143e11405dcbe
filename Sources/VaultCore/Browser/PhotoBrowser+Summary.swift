import Foundation

extension PhotoBrowser {
  /// Counts the browser's photos, the selected ones and their bytes: what `vault info`
  /// says. The blobs' sizes are read from the file system at the models' locations; a blob
  /// that is missing counts nothing.
  public func summary() -> SpaceSummary {
    var summary = SpaceSummary(photos: count, selected: 0, originalBytes: 0, storedBytes: 0)
    var info = stat()
    for (_, photo) in listed(selectedOnly: false, from: nil, count: nil) {
      if photo.isSelected { summary.selected += 1 }
      // Saturating: the records' sizes are bounded when read, the files' are not. A Live
      // Photo's MOV counts with its still.
      for record in photo.records { summary.originalBytes = Self.adding(summary.originalBytes, record.bytes) }
      for url in photo.blobURLs where stat(url.path, &info) == 0 {
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
