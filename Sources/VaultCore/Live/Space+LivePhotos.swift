/// A space's Live Photos: each pair is one item, listed and numbered as its still, with its
/// MOV riding along (see `LivePairs`).
extension Space {
  /// The pairs among the listed photos, derived again when the list changes. A format-1
  /// space has none (its index carries no identifiers).
  func livePairs() -> LivePairs {
    if let cached = livePairCache, cached.revision == orderRevision { return cached.pairs }
    var pairs = LivePairs()
    if let state = journal?.state, !state.liveIdentifiers.isEmpty {
      pairs = LivePairs(identifiers: state.liveIdentifiers) { id in
        state.photo(id).map { ($0.record.format, $0.order) }
      }
    }
    livePairCache = (orderRevision, pairs)
    return pairs
  }

  /// The MOV listed under the still `id`, if it is one's.
  func liveMotion(of id: BlobID) -> PhotoRecord? {
    guard let motion = livePairs().motionOfStill[id] else { return nil }
    return journal?.state.photo(motion)?.record
  }

  /// `positions` (in `entries`) without the MOVs that are listed under their still, so that
  /// a pair takes one number in every list.
  func withoutLiveMotions(_ positions: [Int]) -> [Int] {
    let pairs = livePairs()
    guard !pairs.isEmpty else { return positions }
    return positions.filter { pairs.stillOfMotion[entries.id(at: $0)] == nil }
  }
}
