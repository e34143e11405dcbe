/// Deleting one half of Live Photos (`vault delete` of a still or a MOV alone), through the
/// deletion request.
extension PhotoBrowser {
  /// Deletes one half of each of the Live Photos `photos` (their MOVs, or their stills); the
  /// other half stays, a photo or a video of its own (a damaged MOV goes without its intact
  /// still). Throws, deleting nothing, when one of them is not a Live Photo (named by its
  /// number, its 0-based index given with it). Then asks the owner to reload.
  public func delete(_ half: LiveHalf, of photos: [(index: Int, photo: PhotoModel)], forGood: Bool = false)
    throws
  {
    try requireLivePhotos(photos)
    try delete(photos.compactMap { $0.photo.alone(half) }, forGood: forGood)
  }

  /// Throws, naming the first of `photos` that is not a Live Photo: only a Live Photo has
  /// a half to delete alone.
  public func requireLivePhotos(_ photos: [(index: Int, photo: PhotoModel)]) throws {
    guard let plain = photos.first(where: { $0.photo.motion == nil }) else { return }
    throw VaultError.invalidArgument(
      "photo \(plain.index + 1) '\(shownNames.of(plain.photo.record))' is not a live photo, which alone has a half to "
        + "delete; nothing deleted")
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
