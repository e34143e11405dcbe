import VaultCore

/// What `vault delete` says about the halves of Live Photos it is about to delete alone,
/// would delete (a dry run) or deleted: each by the number of its Live Photo, the file that
/// goes and the one that stays.
public struct LiveHalfDeletionText {
  /// One description a Live Photo, in the photos' order: "'IMG_1.MOV' (the motion of live
  /// photo 'IMG_1.HEIC'; 'IMG_1.HEIC' stays)".
  public let described: [String]
  /// "2 live photo motions".
  public let count: String
  /// The descriptions after the Live Photos' numbers, as the question and a dry run list them.
  public let lines: [String]

  /// The text for `half` of each of `photos`, every one a Live Photo, its files named as
  /// `names` shows them.
  public init(half: LiveHalf, photos: [(index: Int, photo: PhotoModel)], names: ShownFileNames) {
    described = photos.map { item in
      let (still, motion) = (names.of(item.photo.record), item.photo.motion.map(names.of) ?? "?")
      let (gone, kept) = half == .motion ? (motion, still) : (still, motion)
      return "'\(gone)' (the \(half.rawValue) of live photo '\(still)'; '\(kept)' stays)"
    }
    count = "\(photos.count) live photo \(half.rawValue)\(photos.count == 1 ? "" : "s")"
    lines = zip(photos, described).map { "  \($0.index + 1) \($1)" }
  }
}
