import VaultCore
import VaultTerminal

/// How `vault trash` shows Recently Deleted, and finds its items by number or id.
enum TrashListing {
  /// One line an item: its number, name, when it was deleted and the days it has left.
  static func lines(_ items: [TrashItem], now: Timestamp) -> [String] {
    let width = String(items.count).count
    return items.enumerated().map { offset, item in
      let number = String(offset + 1)
      let left =
        item.daysLeft(now: now).map { $0 == 1 ? "1 day left" : "\($0) days left" } ?? "kept until emptied"
      return String(repeating: " ", count: width - number.count) + number + "  "
        + DeletionText.itemName(item.photo) + "  deleted "
        + PhotoListing.date(item.deletedAt) + ", " + left
    }
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

  /// "30 days", or "until emptied".
  static func keeps(_ retention: TrashRetention) -> String {
    retention.days == nil ? "until 'vault trash empty'" : "\(retention) after their deletion"
  }
}
