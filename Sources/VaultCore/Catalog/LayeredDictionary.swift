/// A dictionary that a journal's state changes a few keys of at a time while every catalog
/// keeps a copy of it (the names recorded for files, `SpaceState.recordedNames`): a large
/// base, shared between copies, and the recent changes on top of it. A copy shares both; a
/// change to a copy whose base is shared copies only the recent changes, and folds them
/// into a new base once they are a sixteenth of it. A plain dictionary shared with the
/// previous catalog was copied whole at every write: 100,000 names for each batch of 64
/// photos an import writes.
struct LayeredDictionary<Key: Hashable & Comparable & Sendable, Value: Sendable>: Sendable {
  /// The base: changed in place only while no other copy holds it, as the standard
  /// library's own buffers are; otherwise replaced.
  private final class Base: @unchecked Sendable {
    var storage: OrderedStorage
    init(_ storage: OrderedStorage) { self.storage = storage }
  }

  /// The base's keys and values: keys given in increasing order (a snapshot's names, which
  /// it lists by id) are appended to an array, found by binary search; others are hashed
  /// into a dictionary. 100,000 names inserted into a dictionary wrote all over a table of
  /// 10 MB, a third of the time left in opening a big space.
  private struct OrderedStorage {
    var values: [Key: Value] = [:]
    /// Keys in increasing order, none of them a key of `values`, with their values (nil:
    /// removed since).
    var ordered: [(key: Key, value: Value?)] = []

    /// Whether `key` can be appended to `ordered`: past its last key, and not in `values`.
    func takesInOrder(_ key: Key) -> Bool {
      (ordered.last.map { $0.key < key } ?? true) && (values.isEmpty || values[key] == nil)
    }

    /// Where `key` is in `ordered`.
    func orderedIndex(of key: Key) -> Int? {
      var (low, high) = (0, ordered.count)
      while low < high {
        let middle = (low + high) / 2
        if ordered[middle].key < key { low = middle + 1 } else { high = middle }
      }
      return low < ordered.count && ordered[low].key == key ? low : nil
    }

    subscript(key: Key) -> Value? {
      if !values.isEmpty, let value = values[key] { return value }
      return orderedIndex(of: key).flatMap { ordered[$0].value }
    }

    /// Sets the value of `key` (nil: none); the value it had.
    mutating func set(_ key: Key, to value: Value?) -> Value? {
      if let index = orderedIndex(of: key) {
        defer { ordered[index].value = value }
        return ordered[index].value
      }
      return value.map { values.updateValue($0, forKey: key) } ?? values.removeValue(forKey: key)
    }

    /// Every key with its value.
    var all: [Key: Value] {
      guard !ordered.isEmpty else { return values }
      var all = values
      all.reserveCapacity(values.count + ordered.count)
      for case (let key, let value?) in ordered { all[key] = value }
      return all
    }
  }

  private var base = Base(OrderedStorage())
  /// The changes made while the base was shared: a value, or nil for a key removed.
  private var recent: [Key: Value?] = [:]
  /// How many keys have a value.
  private(set) var count = 0

  init() {}

  var isEmpty: Bool { count == 0 }

  subscript(key: Key) -> Value? {
    get {
      if !recent.isEmpty, let change = recent[key] { return change }
      return base.storage[key]
    }
    set { update(key, to: newValue) }
  }

  private mutating func update(_ key: Key, to value: Value?) {
    if isKnownUniquelyReferenced(&base) {
      foldRecent()
      let old = base.storage.set(key, to: value)
      count += (value == nil ? 0 : 1) - (old == nil ? 0 : 1)
      return
    }
    count += (value == nil ? 0 : 1) - (self[key] == nil ? 0 : 1)
    if value == nil && base.storage[key] == nil {
      recent[key] = nil
    } else {
      recent[key] = .some(value)
    }
    if recent.count > max(Self.foldedAtLeast, count / 16) {
      base = Base(OrderedStorage(values: merged()))
      recent = [:]
    }
  }

  /// The base is this copy's alone: the recent changes go into it.
  private mutating func foldRecent() {
    guard !recent.isEmpty else { return }
    for (key, value) in recent { _ = base.storage.set(key, to: value) }
    recent = [:]
  }

  /// Recent changes are folded into a new base once there are this many, at least: a
  /// small dictionary is copied whole.
  private static var foldedAtLeast: Int { 256 }

  /// Makes room for `count` keys given in order at once (a big space's names, read
  /// together at its open), so that they are not copied at every doubling.
  mutating func reserveCapacity(_ count: Int) {
    makeBaseUnique()
    base.storage.ordered.reserveCapacity(count)
  }

  /// Sets the key of each of `changes` to its value where the key has none, or where
  /// `replaces` says the value wins over the one it has. A key past those given in order
  /// before is appended without a lookup (a snapshot's names, read together), and the
  /// base is found shared or not once for all of them.
  mutating func update(_ changes: some Sequence<(Key, Value)>, where replaces: (Value, Value) -> Bool) {
    makeBaseUnique()
    // Taken out of the base while it changes: the base is a class, whose every change was
    // checked for exclusive access on its own.
    var storage = OrderedStorage()
    swap(&storage, &base.storage)
    for (key, value) in changes {
      if storage.takesInOrder(key) {
        storage.ordered.append((key, value))
        count += 1
      } else if let old = storage[key] {
        if replaces(value, old) { _ = storage.set(key, to: value) }
      } else {
        _ = storage.set(key, to: value)
        count += 1
      }
    }
    swap(&storage, &base.storage)
  }

  /// Makes the base this copy's alone, with the recent changes in it.
  private mutating func makeBaseUnique() {
    if isKnownUniquelyReferenced(&base) {
      foldRecent()
    } else {
      base = Base(OrderedStorage(values: merged()))
      recent = [:]
    }
  }

  /// Whether a key with its value satisfies `predicate`: each read in the order it is
  /// stored, without a lookup.
  func contains(where predicate: (Key, Value) -> Bool) -> Bool {
    let storage = base.storage
    for (key, value) in storage.values where recent.isEmpty || recent[key] == nil {
      if predicate(key, value) { return true }
    }
    for case (let key, let value?) in storage.ordered where recent.isEmpty || recent[key] == nil {
      if predicate(key, value) { return true }
    }
    for case (let key, let value?) in recent where predicate(key, value) { return true }
    return false
  }

  /// Every key with its value.
  func merged() -> [Key: Value] {
    var values = base.storage.all
    for (key, value) in recent { values[key] = value }
    return values
  }
}
