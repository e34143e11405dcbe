/// Imports of one photo made apart: copies of a space changed on two machines before they
/// synced may each have imported the same file, under ids of their own. They are one item
/// once the copies meet. Like a Live Photo's pair, this is derived from the list, never
/// stored: the imports of one keyed content hash are one photo, listed as the first of them
/// in list order (the earliest import, by order then id), which every merged copy finds
/// whatever order it read its journal files in. The others stay in the journal with their
/// blobs (a sync may bring a copy's files after its journal, so no import's files are the
/// only ones known to be there), and are hidden: a deletion takes them all.
struct DuplicateImports: Sendable {
  /// The kept import of each other import.
  private(set) var keptImport: [BlobID: BlobID] = [:]
  /// The other imports of each kept import, in list order.
  private(set) var otherImports: [BlobID: [BlobID]] = [:]

  /// The table of the first import of each content hash (see `init(_:)`), kept to find a
  /// photo by its content hash: a slot holds the top half of the hash's `tableKey` (its key
  /// here) above the photo's position + 1, or 0. A key's first slot is by its top bits, so
  /// that the table grows from its slots alone.
  private var slots: [UInt64] = []
  /// How many photos of the list it was made of it holds.
  private var count = 0
  /// The slots looked at by inserts, for tests: a table keyed by bits someone could choose
  /// took quadratic time.
  private(set) var probesForTesting = 0

  var isEmpty: Bool { keptImport.isEmpty }

  init() {}

  /// The imports of one photo among `entries`, which are in list order. A table of the
  /// hashes' keys (`ContentHash.tableKey`: keyed per process, so that no journal can make
  /// its photos' keys alike), open-addressed by the key itself: a big space's list is one
  /// pass of 32-byte reads and one slot of 8 bytes a photo, and only photos whose keys are
  /// equal have their whole hashes compared.
  init(_ entries: PhotoEntries) {
    append(from: entries)
  }

  /// The imports of one photo among `entries`, a list this one's was made of with photos
  /// appended: the appended ones are added to its table, so that an import's cost per
  /// photo does not grow with the space.
  func appending(_ entries: PhotoEntries) -> DuplicateImports {
    var imports = self
    imports.append(from: entries)
    return imports
  }

  /// Takes in the photos appended to the list this one's was made of, in place (see
  /// `appending`): a list read in steps, as a snapshot is decrypted, is taken in as it grows.
  mutating func append(from entries: PhotoEntries) {
    precondition(entries.count <= PhotoEntries.positionLimit, "too many photos for one space")
    if count > entries.count { self = DuplicateImports() }
    if entries.count * 2 > slots.count { grow(toHold: entries.count) }
    for position in count..<entries.count { insert(position, of: entries) }
  }

  /// Makes the table again, at least half empty once it holds `photos`, from its own slots.
  private mutating func grow(toHold photos: Int) {
    var capacity = max(16, slots.count)
    while capacity < photos * 2 { capacity *= 2 }
    let old = slots
    slots = [UInt64](repeating: 0, count: capacity)
    let mask = capacity - 1
    for entry in old where entry != 0 {
      var slot = firstSlot(of: entry >> 32)
      while slots[slot] != 0 { slot = (slot + 1) & mask }
      slots[slot] = entry
    }
  }

  /// The slot where a probe for `key` (32 bits) starts: its top bits, as many bits as the
  /// table's size takes.
  @inline(__always)
  private func firstSlot(of key: UInt64) -> Int {
    Int(truncatingIfNeeded: key >> (32 - slots.count.trailingZeroBitCount))
  }

  /// The photo's position a filled slot holds (below its key, as position + 1).
  @inline(__always)
  private static func position(in slot: UInt64) -> Int { Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1 }

  /// Adds the photo at `position` in `entries`, after those before it: the first of its
  /// content hash goes in the table, a later one is an import of it.
  private mutating func insert(_ position: Int, of entries: PhotoEntries) {
    let key = entries.hashKey(at: position) >> 32
    let mask = slots.count - 1
    var slot = firstSlot(of: key)
    count = position + 1
    probesForTesting += 1
    while slots[slot] != 0 {
      let kept = Self.position(in: slots[slot])
      if slots[slot] >> 32 == key && entries.hash(at: kept) == entries.hash(at: position) {
        keptImport[entries.id(at: position)] = entries.id(at: kept)
        otherImports[entries.id(at: kept), default: []].append(entries.id(at: position))
        return
      }
      slot = (slot + 1) & mask
      probesForTesting += 1
    }
    slots[slot] = key << 32 | UInt64(position + 1)
  }

  /// The position in `entries` (the list it was made of) of the first import of the
  /// photo whose keyed content hash is `hash`, if one is listed.
  func position(of hash: ContentHash, in entries: PhotoEntries) -> Int? {
    guard !slots.isEmpty else { return nil }
    let (key, mask) = (hash.tableKey >> 32, slots.count - 1)
    var slot = firstSlot(of: key)
    while slots[slot] != 0 {
      let kept = Self.position(in: slots[slot])
      if slots[slot] >> 32 == key && entries.hash(at: kept) == hash { return kept }
      slot = (slot + 1) & mask
    }
    return nil
  }

  /// The import listed for the photo `id` is an import of: itself unless it is hidden.
  func listed(_ id: BlobID) -> BlobID {
    keptImport.isEmpty ? id : keptImport[id] ?? id
  }

  /// Every import of the photo `id` is an import of, the listed one first.
  func all(of id: BlobID) -> [BlobID] {
    let kept = listed(id)
    return [kept] + (otherImports[kept] ?? [])
  }
}
