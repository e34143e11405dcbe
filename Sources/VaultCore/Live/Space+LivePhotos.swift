/// A space's Live Photos: each pair is one item, listed and numbered as its still, with its
/// MOV riding along (see `LivePairs`).
extension Space {
  /// The pairs among the listed photos, derived again when the list changes. A format-1
  /// space has none (its index carries no identifiers).
  func livePairs() -> LivePairs {
    if let cached = livePairCache, cached.revision == orderRevision { return cached.pairs }
    var pairs = LivePairs()
    if let state = journal?.state, !state.liveIdentifiers.isEmpty {
      let imports = duplicateImports()
      pairs = LivePairs(
        identifiers: state.liveIdentifiers,
        photo: { id in state.photo(id).map { ($0.record.format, $0.order, $0.record.name) } },
        listedImport: imports.listed)
    }
    livePairCache = (orderRevision, pairs)
    return pairs
  }

  /// The MOV listed under the still `id`, if it is one's.
  func liveMotion(of id: BlobID) -> PhotoRecord? {
    guard let motion = livePairs().motionOfStill[id] else { return nil }
    return journal?.state.photo(motion)?.record
  }

  /// The Live Photo whose MOV carries `identifier`, if one is listed.
  func livePair(ofIdentifier identifier: String) -> (still: PhotoRecord, motion: PhotoRecord)? {
    guard let state = journal?.state else { return nil }
    for (id, carried) in state.liveIdentifiers where carried == identifier {
      if let pair = livePair(containing: id), pair.motion.id == id { return pair }
    }
    return nil
  }

  /// `positions` (in `entries`) without the MOVs that are listed under their still, so that
  /// a pair takes one number in every list.
  func withoutLiveMotions(_ positions: [Int]) -> [Int] {
    let pairs = livePairs()
    guard !pairs.isEmpty else { return positions }
    return positions.filter { pairs.stillOfMotion[entries.id(at: $0)] == nil }
  }

  /// The Live Photo whose still or MOV `id` is, if it is a half of one: its still and MOV.
  public func livePair(containing id: BlobID) -> (still: PhotoRecord, motion: PhotoRecord)? {
    let pairs = livePairs()
    guard let still = pairs.stillOfMotion[id] ?? (pairs.motionOfStill[id] != nil ? id : nil),
      let motion = pairs.motionOfStill[still], let state = journal?.state,
      let stillRecord = state.photo(still)?.record, let motionRecord = state.photo(motion)?.record
    else { return nil }
    return (stillRecord, motionRecord)
  }

  /// Deletes one half of each of the Live Photos `photos` (their MOVs, or their stills); the
  /// other half stays, a photo or a video of its own (a damaged MOV goes without its intact
  /// still). Photos that are not Live Photos are left alone.
  public func deleteLiveHalves(of photos: [PhotoModel], _ half: LiveHalf) throws {
    let ids = Set(
      photos.compactMap { photo in photo.motion.map { half == .motion ? $0.id : photo.record.id } })
    try writing { try $0.deletePhotos(ids: ids) }
  }
}
