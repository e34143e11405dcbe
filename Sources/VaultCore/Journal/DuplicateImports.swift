/// Imports of one photo made apart: copies of a space changed on two machines before they
/// synced may each have imported the same file, under ids of their own. They are one item
/// once the copies meet. Like a Live Photo's pair, this is derived from the list, never
/// stored: the imports of one keyed content hash are one photo, listed as the first of them
/// in list order (the earliest import, by order then id), which every merged copy finds
/// whatever order it read its journal files in. The others stay in the journal with their
/// blobs (a sync may bring a copy's files after its journal, so no import's files are the
/// only ones known to be there), and are hidden: a deletion takes them all.
struct DuplicateImports {
  /// The kept import of each other import.
  private(set) var keptImport: [BlobID: BlobID] = [:]
  /// The other imports of each kept import, in list order.
  private(set) var otherImports: [BlobID: [BlobID]] = [:]

  var isEmpty: Bool { keptImport.isEmpty }

  init() {}

  /// The imports of one photo among `entries`, which are in list order.
  init(_ entries: PhotoEntries) {
    var first: [ContentHash: BlobID] = [:]
    first.reserveCapacity(entries.count)
    for position in entries.indices {
      let id = entries.id(at: position)
      let hash = entries.hash(at: position)
      guard let kept = first[hash] else {
        first[hash] = id
        continue
      }
      keptImport[id] = kept
      otherImports[kept, default: []].append(id)
    }
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
