/// Totals of an import.
public struct ImportSummary: Equatable, Sendable {
  public var added = 0
  public var duplicates = 0
  public var failed = 0
  public var warnings = 0
  /// Files found in folders that are not photos.
  public var skipped = 0
  /// Moving: source files removed, and source files of photos in the space that stay.
  public var sourcesRemoved = 0
  public var sourcesKept = 0
  /// The import stopped early at a request (the files not reached are not reported).
  public var interrupted = false
}

extension ImportSummary {
  /// The files of the import done so far: added, duplicates, failed or skipped.
  var filesDone: Int { added + duplicates + failed + skipped }

  /// Counts one reported event.
  mutating func count(_ event: ImportEvent) {
    switch event {
    case .added: added += 1
    case .duplicate: duplicates += 1
    case .failed: failed += 1
    case .skipped: skipped += 1
    case .warning: warnings += 1
    case .sourceRemoved: sourcesRemoved += 1
    case .sourceKept: sourcesKept += 1
    case .paired, .livePairKept: break
    }
  }
}
