/// A change to an album itself rather than to the photos in it: what a data source's
/// `albumNamingRequest` makes (`PhotoBrowser.createAlbum`, `renameAlbum`, `deleteAlbum`).
/// Names are as `AlbumName.normalized` returns them.
public enum AlbumNaming: Equatable, Sendable {
  /// Makes an empty album, which no album may have the name of yet, even in another case.
  case create(String)
  /// Renames an album; no other album may have the new name yet, even in another case (a
  /// change of case alone is a rename).
  case rename(String, to: String)
  /// Deletes an album for good; its photos stay.
  case delete(String)
}
