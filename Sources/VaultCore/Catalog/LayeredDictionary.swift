/// A dictionary that a journal's state changes a few keys of at a time while every catalog
/// keeps a copy of it (the names recorded for files, `SpaceState.recordedNames`): a large
/// base, shared between copies, and the recent changes on top of it. A copy shares both; a
/// change to a copy whose base is shared copies only the recent changes, and folds them
/// into a new base once they are a sixteenth of it. A plain dictionary shared with the
/// previous catalog was copied whole at every write: 100,000 names for each batch of 64
/// photos an import writes.
struct LayeredDictionary<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  /// The base: changed in place only while no other copy holds it, as the standard
  /// library's own buffers are; otherwise replaced.
  private final class Base: @unchecked Sendable {
    var values: [Key: Value]
    init(_ values: [Key: Value]) { self.values = values }
  }

  private var base = Base([:])
  /// The changes made while the base was shared: a value, or nil for a key removed.
  private var recent: [Key: Value?] = [:]
  /// How many keys have a value.
  private(set) var count = 0

  init() {}

  var isEmpty: Bool { count == 0 }

  subscript(key: Key) -> Value? {
    get {
      if !recent.isEmpty, let change = recent[key] { return change }
      return base.values[key]
    }
    set { update(key, to: newValue) }
  }

  private mutating func update(_ key: Key, to value: Value?) {
    if isKnownUniquelyReferenced(&base) {
      foldRecent()
      let old = value.map { base.values.updateValue($0, forKey: key) } ?? base.values.removeValue(forKey: key)
      count += (value == nil ? 0 : 1) - (old == nil ? 0 : 1)
      return
    }
    count += (value == nil ? 0 : 1) - (self[key] == nil ? 0 : 1)
    if value == nil && base.values[key] == nil {
      recent[key] = nil
    } else {
      recent[key] = .some(value)
    }
    if recent.count > max(Self.foldedAtLeast, base.values.count / 16) {
      base = Base(merged())
      recent = [:]
    }
  }

  /// The base is this copy's alone: the recent changes go into it.
  private mutating func foldRecent() {
    guard !recent.isEmpty else { return }
    for (key, value) in recent { base.values[key] = value }
    recent = [:]
  }

  /// Recent changes are folded into a new base once there are this many, at least: a
  /// small dictionary is copied whole.
  private static var foldedAtLeast: Int { 256 }

  /// Makes room for `count` keys at once (a big space's names, read together at its open),
  /// so that the dictionary is not rehashed at every doubling.
  mutating func reserveCapacity(_ count: Int) {
    if isKnownUniquelyReferenced(&base) {
      foldRecent()
    } else {
      base = Base(merged())
      recent = [:]
    }
    base.values.reserveCapacity(count)
  }

  /// Every key with its value.
  func merged() -> [Key: Value] {
    guard !recent.isEmpty else { return base.values }
    var values = base.values
    for (key, value) in recent { values[key] = value }
    return values
  }
}
