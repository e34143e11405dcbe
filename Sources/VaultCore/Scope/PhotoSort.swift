import Foundation

/// The orders a list of photos can be put in. Ties are settled by import order, so every
/// order is total and the same on every run.
public enum PhotoSort: String, CaseIterable, Sendable {
  /// By date: when the photo was taken, or, when its file does not say, when it was
  /// imported (see `PhotoDates`).
  case taken
  /// By import order: the space's own list order.
  case imported
  /// By file name, ignoring case.
  case name
  /// By file size, smallest first.
  case size

  /// `positions` (0-based, in `entries`, in list order) put in this order. `dates` are the
  /// photos' dates (`PhotoDates.of(entries)`), needed only for `.taken`.
  func sorted(_ positions: [Int], of entries: some PhotoKeyList, dates: () -> [Int64]) -> [Int] {
    switch self {
    case .imported:
      return positions
    case .taken:
      let dates = dates()
      // Photos mostly come in the order they were taken: sorted already, nothing to do.
      if zip(positions, positions.dropFirst()).allSatisfy({ dates[$0] <= dates[$1] }) {
        return positions
      }
      return positions.sorted { (dates[$0], $0) < (dates[$1], $1) }
    case .name:
      // Each record is decoded once, not at every comparison.
      let names = positions.map { entries.record(at: $0).name }
      let keys = names.map { $0.lowercased() }
      let order = positions.indices.sorted {
        (keys[$0], names[$0], positions[$0]) < (keys[$1], names[$1], positions[$1])
      }
      return order.map { positions[$0] }
    case .size:
      let sizes = positions.map { entries.record(at: $0).bytes }
      let order = positions.indices.sorted {
        (sizes[$0], positions[$0]) < (sizes[$1], positions[$1])
      }
      return order.map { positions[$0] }
    }
  }
}

/// A photo's date, for sorting and for `--since` and `--until`: when it was taken (its
/// `taken`, read in `zone` when the file gave no UTC offset), else when it was imported.
public enum PhotoDates {
  /// The date of each photo of `entries` (in list order), in nanoseconds since 1970 UTC.
  /// Import times are made to increase along the list (each at least one more than the
  /// one before, as the journal orders them), so that photos without a date taken keep
  /// their import order among themselves: imports prepare photos on several threads, and
  /// a record's `importedAt` need not follow the order photos were listed in.
  public static func of(_ entries: [IndexEntry], zone: TimeZone = .current) -> [Int64] {
    of(keys: entries, zone: zone)
  }

  /// The same for a space's entries, read without decoding their records.
  public static func of(_ entries: PhotoEntries, zone: TimeZone = .current) -> [Int64] {
    of(keys: entries, zone: zone)
  }

  static func of(keys entries: some PhotoKeyList, zone: TimeZone) -> [Int64] {
    var imported = Int64.min
    return (0..<entries.count).map { position in
      let own = entries.importedAt(at: position).nanosecondsSince1970
      imported = imported == .min || imported == .max ? own : max(own, imported + 1)
      guard let taken = entries.taken(at: position) else { return imported }
      return Timestamp(
        seconds: taken.secondsSince1970(assuming: zone), nanoseconds: taken.nanoseconds
      )
      .nanosecondsSince1970
    }
  }
}
