import Foundation

/// The space an import writes into, once it is unlocked, shared with the workers that
/// started before: they wait here for it (or for the news that it will not come), then ask
/// it whether it holds their file's content while the importing thread commits into it.
final class UnlockedSpace {
  /// Guards the fields below, and the space's list: workers read it (`holds`) while the
  /// importing thread's commits change it (`withSpace`).
  private let condition = NSCondition()
  private var space: Space?
  private var hashKey: SecureBytes?
  private var failed = false

  var isOpen: Bool {
    condition.lock()
    defer { condition.unlock() }
    return space != nil
  }

  func open(_ space: Space) {
    condition.lock()
    self.space = space
    hashKey = space.master.contentHashKey()
    condition.broadcast()
    condition.unlock()
  }

  func fail() {
    condition.lock()
    failed = true
    condition.broadcast()
    condition.unlock()
  }

  /// The space and its content-hash key; nil if it could not be unlocked.
  func wait() -> (Space, SecureBytes)? {
    condition.lock()
    defer { condition.unlock() }
    while space == nil && !failed { condition.wait() }
    guard let space, let hashKey else { return nil }
    return (space, hashKey)
  }

  /// Whether the open space lists a photo with this content (`Space.listedPhoto`).
  func holds(_ contentHash: String) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return space?.listedPhoto(withContentHash: contentHash) != nil
  }

  /// Runs `body`, which changes the space's list, while no worker reads it.
  func withSpace<Result>(_ body: () throws -> Result) rethrows -> Result {
    condition.lock()
    defer { condition.unlock() }
    return try body()
  }
}
