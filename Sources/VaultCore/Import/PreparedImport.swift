/// What preparing one file of an import gives.
enum PreparedImport {
  /// Its blobs, written under temporary names, to be moved into place.
  case photo(PreparedPhoto)
  /// The space already holds a photo with this content hash.
  case duplicate(contentHash: String)
  /// The space was never unlocked: the import stops without it.
  case spaceNotOpened
}
