/// Where each listed photo of a `SpaceState` is, by id: an open-addressing table of list
/// positions, probed linearly. Opening a big space looks up or adds every photo of its
/// snapshot; a `[BlobID: Int]` spent most of that hashing 16 bytes with SipHash and missing
/// the cache on 24-byte buckets. A slot here is 8 bytes (32 bits of the id's hash and the
/// position), and the id itself is read from the list only when those 32 bits match.
///
/// The hash is NH's (UMAC): the id's two words, each plus a key drawn per process,
/// multiplied to 128 bits, folded and mixed. Ids are random, and someone who writes ids
/// into a journal (it takes the space's key) cannot choose ones that collide here without
/// knowing the keys: NH collides for a given pair of ids with a chance of about 2^-64.
struct PositionIndex {
  /// 0: empty; `removed`: a photo's slot after its deletion; else the hash's high 32 bits
  /// and the position + 1.
  private var slots: [UInt64] = []
  /// Photos in the table.
  private(set) var count = 0
  /// Slots not empty (photos and removed ones): the table grows on them.
  private var used = 0
  /// What `warm` read (nothing uses it).
  private var warmed: UInt64 = 0

  private static let removed = UInt64.max
  private static let keys = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

  private static func hash(_ id: BlobID) -> UInt64 {
    let (high, low) = id.words
    let product = TableHashing.pair(high, low, keys: keys)
    return TableHashing.mixed(product.high ^ product.low)
  }

  /// The slot holding `id`, if it is held; `idAt` gives the id at a position.
  private func slot(of id: BlobID, hash: UInt64, idAt: (Int) -> BlobID) -> Int? {
    guard !slots.isEmpty else { return nil }
    let mask = slots.count - 1
    var index = Int(truncatingIfNeeded: hash) & mask
    while true {
      let slot = slots[index]
      if slot == 0 { return nil }
      if slot != Self.removed, slot >> 32 == hash >> 32, idAt(Int(slot & 0xFFFF_FFFF) - 1) == id {
        return index
      }
      index = (index + 1) & mask
    }
  }

  /// Reads the first slot of each of `ids`, so that the inserts and lookups that follow find
  /// them in the cache. The reads do not depend on each other, so the processor makes them
  /// side by side: one at a time, each insert of a big snapshot's photo waited for memory
  /// (nine tenths of an open's inserting was that one read).
  mutating func warm(_ ids: some Sequence<BlobID>) {
    guard !slots.isEmpty else { return }
    let mask = slots.count - 1
    var read: UInt64 = 0
    for id in ids { read ^= slots[Int(truncatingIfNeeded: Self.hash(id)) & mask] }
    // Kept, so that the reads are not left out as unused.
    warmed = read
  }

  /// Where `id` is in the list.
  func position(of id: BlobID, idAt: (Int) -> BlobID) -> Int? {
    slot(of: id, hash: Self.hash(id), idAt: idAt).map { Int(slots[$0] & 0xFFFF_FFFF) - 1 }
  }

  /// Adds `id` at `position`, unless it is held already: then its position is returned and
  /// nothing changes.
  mutating func insert(_ id: BlobID, at position: Int, idAt: (Int) -> BlobID) -> Int? {
    precondition(position >= 0 && position < PhotoEntries.positionLimit, "too many photos for one space")
    let hash = Self.hash(id)
    if let existing = slot(of: id, hash: hash, idAt: idAt) { return Int(slots[existing] & 0xFFFF_FFFF) - 1 }
    if (used + 1) * 2 > slots.count { rebuild(capacity: max(16, (count + 1) * 4), idAt: idAt) }
    place(hash: hash, position: position)
    count += 1
    used += 1
    return nil
  }

  /// Takes `id` out; its position, if it was held.
  mutating func remove(_ id: BlobID, idAt: (Int) -> BlobID) -> Int? {
    guard let index = slot(of: id, hash: Self.hash(id), idAt: idAt) else { return nil }
    let position = Int(slots[index] & 0xFFFF_FFFF) - 1
    // Marked, not emptied: the photos placed after it in its run stay found.
    slots[index] = Self.removed
    count -= 1
    return position
  }

  /// Makes room for `count` photos in all without growing again.
  mutating func reserveCapacity(_ count: Int, idAt: (Int) -> BlobID) {
    if count * 2 > slots.count { rebuild(capacity: count * 2, idAt: idAt) }
  }

  private mutating func place(hash: UInt64, position: Int) {
    let mask = slots.count - 1
    var index = Int(truncatingIfNeeded: hash) & mask
    while slots[index] != 0 { index = (index + 1) & mask }
    slots[index] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(position + 1)
  }

  /// A table of at least `capacity` slots (a power of two) holding the photos held now.
  private mutating func rebuild(capacity: Int, idAt: (Int) -> BlobID) {
    let old = slots
    var size = 16
    while size < capacity { size *= 2 }
    slots = [UInt64](repeating: 0, count: size)
    used = count
    for slot in old where slot != 0 && slot != Self.removed {
      let position = Int(slot & 0xFFFF_FFFF) - 1
      place(hash: Self.hash(idAt(position)), position: position)
    }
  }
}
