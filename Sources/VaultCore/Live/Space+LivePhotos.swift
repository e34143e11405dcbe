/// A space's Live Photos: each pair is one item, listed and numbered as its still, with its
/// MOV riding along (see `LivePairs`, derived in the catalog).
extension Space {
  /// The pairs among the listed photos. A format-1 space has none (its index carries no
  /// identifiers).
  func livePairs() -> LivePairs { catalog.tables.pairs }

  /// The Live Photo whose MOV carries `identifier`, if one is listed.
  func livePair(ofIdentifier identifier: String) -> (still: PhotoRecord, motion: PhotoRecord)? {
    guard let state = journal?.state else { return nil }
    for (id, carried) in state.liveIdentifiers where carried == identifier {
      if let pair = livePair(containing: id), pair.motion.id == id { return pair }
    }
    return nil
  }

  /// The Live Photo whose still or MOV `id` is, if it is a half of one: its still and MOV.
  public func livePair(containing id: BlobID) -> (still: PhotoRecord, motion: PhotoRecord)? {
    let pairs = catalog.tables.pairs
    guard let still = pairs.stillOfMotion[id] ?? (pairs.motionOfStill[id] != nil ? id : nil),
      let stillRecord = journal?.state.photo(still)?.record, let motion = catalog.motion(of: still)
    else { return nil }
    return (stillRecord, motion)
  }
}
