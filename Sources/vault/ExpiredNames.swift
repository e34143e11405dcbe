import VaultCore
import VaultTerminal

/// How a command names what its writer deleted for good from Recently Deleted because it
/// had been there past the retention and grace: one warning an item, on stderr, whatever the
/// command was, so that no deletion for good goes unnamed.
enum ExpiredNames {
  static func warn(_ space: Space) {
    let retention = space.catalog.trashRetention
    // Each under the name `vault trash` showed it under (the catalog no longer has it).
    for (_, name) in space.takeExpiredFromTrash() {
      Diagnostics.warning(
        "'\(name)' was in Recently Deleted longer than \(retention) "
          + "(and \(TrashRetention.graceDays) days' grace): deleted for good")
    }
    if let hold = space.takeTrashExpiryHold() {
      Diagnostics.warning(
        "kept what is due in Recently Deleted: the space holds a change dated "
          + PhotoListing.date(hold.latestStamp) + ", more than a day past this machine's clock "
          + "(a clock set ahead, here or on a synced copy), so how long items were there cannot be told")
    }
  }
}
