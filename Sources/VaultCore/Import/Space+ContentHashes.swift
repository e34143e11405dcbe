/// The one duplicate check of `add` and `serve`: whether the space already holds a file's
/// content, by its keyed hash.
extension Space {
  /// The photo whose content has this keyed hash (its earliest import, see
  /// `DuplicateImports`; a Live Photo's MOV is found by its own hash), or nil when the space
  /// holds none. One lookup in the catalog's table of content hashes, built when the
  /// catalog was.
  public func listedPhoto(withContentHash contentHash: String) -> BlobID? {
    catalog.photoID(withContentHash: ContentHash(contentHash))
  }
}
