import Foundation

/// The space an import writes into, once it is unlocked, shared with the workers that
/// started before: they wait here for it (or for the news that it will not come), then ask
/// whether it holds their file's content while the importing thread commits into it. The
/// workers get values, never the space: its blobs, and its catalog as of the last commit.
final class UnlockedSpace: Sendable {
  private struct State {
    var blobs: SpaceBlobs?
    /// The catalog the space published at its last commit (or when it was opened).
    var catalog: SpaceCatalog?
    var failed = false
  }
  private let state = WaitableMutex(State())

  func open(_ space: Space) {
    let (blobs, catalog) = (space.blobs, space.catalog)
    state.withLock { state in
      state.blobs = blobs
      state.catalog = catalog
    }
    state.wakeAll()
  }

  func fail() {
    state.withLock { $0.failed = true }
    state.wakeAll()
  }

  /// The space's blobs; nil if it could not be unlocked.
  func wait() -> SpaceBlobs? {
    state.withLock(waiting: { $0.blobs == nil && !$0.failed ? .untilWoken : .no }, then: { $0.blobs })
  }

  /// Whether the open space lists a photo with this content, by the catalog's lookup that
  /// `Space.listedPhoto(withContentHash:)` makes too.
  func holds(_ contentHash: String) -> Bool {
    state.withLock { $0.catalog?.photoID(withContentHash: ContentHash(contentHash)) != nil }
  }

  /// Runs `commit`, which changes the space's list, then holds `catalog`, the space's
  /// catalog after it (or as it was, if it failed), while no worker asks what it holds: a
  /// worker asks before the commit or after, never halfway. The catalog before is let go of
  /// first: the space hands its list on to the next one, which appends to it in place only
  /// if no one else holds it (`Space.publish(appending:by:)`).
  func committing(_ commit: () throws -> Void, publishing catalog: () -> SpaceCatalog) rethrows {
    try state.withLock { state in
      state.catalog = nil
      defer { state.catalog = catalog() }
      try commit()
    }
  }
}
