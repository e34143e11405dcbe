/// A setting of a space, kept in its journal (`JournalEntry.spaceSetting`) so that synced
/// copies agree on it: the latest change wins.
package enum SpaceSetting: Equatable, Sendable {
  /// How long Recently Deleted keeps a photo before it is deleted for good.
  case trashRetention(TrashRetention)

  /// The setting's code in its entry.
  var code: UInt8 {
    switch self {
    case .trashRetention: return 1
    }
  }

  /// The setting's value in its entry.
  var value: UInt32 {
    switch self {
    case .trashRetention(let retention): return UInt32(retention.days ?? 0)
    }
  }

  /// The setting an entry's code and value name; nil for an unknown code or a value out of
  /// range (damage).
  init?(code: UInt8, value: UInt32) {
    switch code {
    case 1:
      guard let retention = value == 0 ? TrashRetention.never : TrashRetention(days: Int(value)) else {
        return nil
      }
      self = .trashRetention(retention)
    default: return nil
    }
  }
}

/// How many days Recently Deleted keeps a photo (1 to 3650), or for ever.
public struct TrashRetention: Equatable, Sendable, CustomStringConvertible {
  /// Nil: the photos stay until the trash is emptied or they are restored.
  public let days: Int?

  /// The days a space keeps deleted photos until it is told otherwise, as phones' photo apps do.
  public static let standard = TrashRetention(uncheckedDays: 30)
  public static let never = TrashRetention(uncheckedDays: nil)
  public static let dayRange = 1...3650

  /// Nil when `days` is outside `dayRange`.
  public init?(days: Int) {
    guard Self.dayRange.contains(days) else { return nil }
    self.days = days
  }

  private init(uncheckedDays days: Int?) { self.days = days }

  /// One day in nanoseconds, the unit of journal stamps.
  static let dayNanoseconds: Int64 = 86_400 * 1_000_000_000

  /// How long it keeps them, in nanoseconds; nil for ever.
  var nanoseconds: Int64? { days.map { Int64($0) * Self.dayNanoseconds } }

  /// The days an item stays past its retention before a writer deletes it for good: a
  /// restore made on another copy, or a journal file a sync engine brings back late, has
  /// that long to arrive (docs/SYNC.md). The item shows as due meanwhile, and restores.
  public static let graceDays = 7
  static let graceNanoseconds = Int64(graceDays) * dayNanoseconds

  /// "30 days", "1 day", "until emptied".
  public var description: String {
    guard let days else { return "until emptied" }
    return days == 1 ? "1 day" : "\(days) days"
  }
}
