/// The one duplicate check of `add` and `serve`: whether the space already holds a file's
/// content, by its keyed hash.
extension Space {
  /// The listed photo whose content has this keyed hash (its earliest import, see
  /// `DuplicateImports`), or nil when the space holds none.
  ///
  /// Today one pass over the list's first hash words, whole hashes compared only where the
  /// words are equal; the space's catalog, with its lookup by content hash, will answer
  /// this instead.
  public func listedPhoto(withContentHash contentHash: String) -> BlobID? {
    let wanted = ContentHash(contentHash)
    let word = wanted.word
    for position in entries.indices where entries.hashWord(at: position) == word {
      // In list order, the first import of a content is the one listed.
      if entries.hash(at: position) == wanted { return entries.id(at: position) }
    }
    return nil
  }
}
