import VaultCore

/// Which photo the pager shows, among `count` photos. The count is passed in every time
/// and never stored: the data source re-reads it, and another process may have added or
/// deleted photos since the last key.
public struct PagePosition: Equatable, Sendable {
  /// 0-based.
  public var index: Int

  public init(index: Int) {
    self.index = index
  }

  /// The next photo; stays on the last one (returns false), since wrapping around would
  /// hide that the end was reached.
  @discardableResult
  public mutating func next(count: Int) -> Bool {
    clamp(count: count)
    guard index + 1 < count else { return false }
    index += 1
    return true
  }

  /// The previous photo; stays on the first one (returns false).
  @discardableResult
  public mutating func previous(count: Int) -> Bool {
    clamp(count: count)
    guard index > 0 else { return false }
    index -= 1
    return true
  }

  public mutating func first() {
    index = 0
  }

  public mutating func last(count: Int) {
    index = max(0, count - 1)
  }

  /// `g` then a number: 1-based; returns false (and stays) for 0 or past the end.
  public mutating func go(toNumber number: Int, count: Int) -> Bool {
    guard number >= 1, number <= count else { return false }
    index = number - 1
    return true
  }

  /// After the photo at `index` was deleted and the count is now `count`: the next photo
  /// (the one that moved into this index), or the new last one; false when none is left.
  public mutating func afterDeletion(count: Int) -> Bool {
    clamp(count: count)
    return count > 0
  }

  /// Clamps into 0..<count (0 when there is none).
  public mutating func clamp(count: Int) {
    index = min(max(0, index), max(0, count - 1))
  }
}
