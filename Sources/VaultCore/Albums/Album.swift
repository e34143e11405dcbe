/// An album as the commands see it: a name and the photos in it. Albums are kept by id in
/// the journal; albums of one name made apart in synced copies (each with an id of its
/// own) are shown as one album, holding the photos of both, and are renamed, deleted and
/// changed together.
public struct Album: Equatable, Sendable {
  public let name: String
  /// The photos in the album that the space lists.
  public let photoIDs: Set<BlobID>
  /// The journal's albums of this name, in byte order: one, unless synced copies each made
  /// one of this name.
  let ids: [AlbumID]

  /// How many photos the album holds.
  public var count: Int { photoIDs.count }
}
