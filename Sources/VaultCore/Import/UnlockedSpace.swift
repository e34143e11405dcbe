import Foundation

/// The space an import writes into, once it is unlocked, shared with the workers that
/// started before: they wait here for it (or for the news that it will not come).
final class UnlockedSpace {
  private let condition = NSCondition()
  private var space: Space?
  private var hashKey: SecureBytes?
  private(set) var knownHashes: Set<String> = []
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
    knownHashes = Set(space.entries.map(\.record.contentHash))
    condition.broadcast()
    condition.unlock()
  }

  func fail() {
    condition.lock()
    failed = true
    condition.broadcast()
    condition.unlock()
  }

  /// The space, its content-hash key and the hashes it held when unlocked; nil if it could
  /// not be unlocked.
  func wait() -> (Space, SecureBytes, Set<String>)? {
    condition.lock()
    defer { condition.unlock() }
    while space == nil && !failed { condition.wait() }
    guard let space, let hashKey else { return nil }
    return (space, hashKey, knownHashes)
  }
}
