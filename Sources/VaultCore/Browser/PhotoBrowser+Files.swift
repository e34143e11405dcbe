/// Which item a file belongs to: what `vault verify` names a damaged or missing file by,
/// since a Live Photo's MOV and a hidden import have no number of their own.
extension PhotoBrowser {
  /// The Live Photo whose still or MOV is the file `id`, and which half of it that file is;
  /// nil when the file is not a half of a listed Live Photo.
  public func livePhoto(containing id: BlobID) -> (still: PhotoRecord, motion: PhotoRecord, half: LiveHalf)? {
    guard let photo = index(of: id).flatMap(photo(at:)), let motion = photo.motion else { return nil }
    if motion.id == id { return (photo.record, motion, .motion) }
    return photo.record.id == id ? (photo.record, motion, .still) : nil
  }

  /// The other imports of the photo whose file `id` is (none for a photo imported once).
  public func otherImports(of id: BlobID) -> [BlobID] {
    dataSource.importsOfPhoto(id).filter { $0 != id }
  }
}
