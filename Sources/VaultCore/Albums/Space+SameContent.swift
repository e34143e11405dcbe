extension Space {
  /// The photo the space lists whose content is the file at `path`, byte for byte (by
  /// content hash), if there is one: what an import reported as a duplicate.
  public func listedPhoto(sameAs path: String) throws -> PhotoRecord? {
    let hash = try SourceFile(path: path).hash(key: master.contentHashKey()) { _ in }
    return entries.first { $0.record.contentHash == hash }?.record
  }
}
