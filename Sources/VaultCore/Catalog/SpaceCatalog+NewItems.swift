/// The items a batch of files made, for the summaries of `add` and `serve`.
extension SpaceCatalog {
  /// The items all of whose files are among `records` (the files just imported), by kind:
  /// a still and its MOV imported together are one Live Photo; a file that joined an item
  /// the space held (a MOV paired with a still already there) makes none.
  public func newItems(madeOf records: [PhotoRecord]) -> ItemCount {
    let imported = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var stills = Set<BlobID>()
    var count = ItemCount()
    for record in records {
      let listed = tables.imports.listed(record.id)
      let still = tables.pairs.stillOfMotion[listed] ?? listed
      guard stills.insert(still).inserted, let stillRecord = imported[still] else { continue }
      let motion = tables.pairs.motionOfStill[still]
      if let motion, imported[motion] == nil { continue }
      count.count(stillRecord, hasMotion: motion != nil)
    }
    return count
  }
}
