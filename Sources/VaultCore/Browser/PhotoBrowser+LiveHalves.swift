/// Deleting one half of Live Photos (`vault delete --only`), through the deletion request.
extension PhotoBrowser {
  /// Deletes one half of each of the Live Photos `photos` (their MOVs, or their stills); the
  /// other half stays, a photo or a video of its own (a damaged MOV goes without its intact
  /// still). Photos that are not Live Photos are left alone. Then asks the owner to reload.
  public func delete(_ half: LiveHalf, of photos: [PhotoModel]) throws {
    try delete(photos.compactMap { $0.alone(half) })
  }
}

extension PhotoModel {
  /// The half `half` of a Live Photo as an item of its own (without the other half), what a
  /// deletion request that names only that half is given; nil for anything else.
  func alone(_ half: LiveHalf) -> PhotoModel? {
    guard let motion else { return nil }
    var alone = self
    alone.motion = nil
    if half == .motion { alone.record = motion }
    return alone
  }
}
