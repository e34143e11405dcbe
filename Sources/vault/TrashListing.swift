import VaultCore
import VaultTerminal

/// How `vault trash` shows Recently Deleted, and finds its items by number or id.
enum TrashListing {
  /// One line an item: its number, name (`ShownFileNames.item`: Recently Deleted holds
  /// its files' names), when it was deleted and the days it has left.
  static func lines(_ items: [TrashItem], names: ShownFileNames, now: Timestamp) -> [String] {
    let width = String(items.count).count
    return items.enumerated().map { offset, item in
      let number = String(offset + 1)
      let left = daysLeft(item, now: now)
      return String(repeating: " ", count: width - number.count) + number + "  "
        + names.item(item.photo) + "  deleted "
        + PhotoListing.date(item.deletedAt) + ", " + left
    }
  }

  /// "12 days left", "1 day left", "due: deleted for good at a change from 2026-12-07"
  /// (past its retention, in the grace: still restorable), or "kept until emptied".
  static func daysLeft(_ item: TrashItem, now: Timestamp) -> String {
    guard let days = item.daysLeft(now: now), let goes = item.deletedForGoodFrom else {
      return "kept until emptied"
    }
    if days == 0 { return "due: deleted for good at a change from " + PhotoListing.date(goes) }
    return days == 1 ? "1 day left" : "\(days) days left"
  }

  /// The items `terms` name: numbers as `lines` shows them, or ids of any of their files.
  /// A number past the end or an id of no item is an error that says it is Recently
  /// Deleted's numbering, not the list's.
  static func chosen(by terms: [String], from items: [TrashItem]) throws -> [TrashItem] {
    do {
      let positions = try PhotoSelector.positions(
        PhotoSelector.parse(terms), count: items.count, idsAt: { items[$0].files.map(\.hex) })
      return positions.map { items[$0] }
    } catch VaultError.indexOutOfRange(let index, let count) {
      throw VaultError.invalidArgument(
        count == 0
          ? "there is no item \(index) in Recently Deleted: it is empty"
          : "there is no item \(index) in Recently Deleted: its items are numbered 1 to \(count)")
    } catch VaultError.ambiguousPhotoID(let prefix, 0) {
      throw VaultError.invalidArgument("no item in Recently Deleted has an id starting with '\(prefix)'")
    }
  }

  /// "30 days after their deletion", or "until 'vault trash empty'".
  static func keeps(_ retention: TrashRetention) -> String {
    retention.days == nil ? "until 'vault trash empty'" : "\(retention) after their deletion"
  }
}
