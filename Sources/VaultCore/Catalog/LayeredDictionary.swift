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
    makeBaseUnique()
    base.values.reserveCapacity(count)
  }

  /// Sets the key of each of `changes` to its value where the key has none, or where
  /// `replaces` says the value wins over the one it has: one lookup a change (a snapshot's
  /// names, read together), where reading the value and then setting it took two, and the
  /// base is found shared or not once for all of them.
  mutating func update(_ changes: some Sequence<(Key, Value)>, where replaces: (Value, Value) -> Bool) {
    makeBaseUnique()
    // Taken out of the base while it changes: the base is a class, whose every change was
    // checked for exclusive access on its own.
    var values: [Key: Value] = [:]
    swap(&values, &base.values)
    for (key, value) in changes {
      guard let old = values.updateValue(value, forKey: key) else {
        count += 1
        continue
      }
      if !replaces(value, old) { values[key] = old }
    }
    swap(&values, &base.values)
  }

  /// Makes the base this copy's alone, with the recent changes in it.
  private mutating func makeBaseUnique() {
    if isKnownUniquelyReferenced(&base) {
      foldRecent()
    } else {
      base = Base(merged())
      recent = [:]
    }
  }

  /// Whether a key with its value satisfies `predicate`: each read in the order it is
  /// stored, without a lookup.
  func contains(where predicate: (Key, Value) -> Bool) -> Bool {
    for (key, value) in base.values where recent.isEmpty || recent[key] == nil {
      if predicate(key, value) { return true }
    }
    for case (let key, let value?) in recent where predicate(key, value) { return true }
    return false
  }

  /// Every key with its value.
  func merged() -> [Key: Value] {
    guard !recent.isEmpty else { return base.values }
    var values = base.values
    for (key, value) in recent { values[key] = value }
    return values
  }
}
