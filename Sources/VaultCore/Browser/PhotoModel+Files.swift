import Foundation

/// An item's files, said once: a photo's own, or a Live Photo's still and its MOV. What
/// counts, exports, mounts, deletes and verifies an item reads these rather than asking
/// whether it has a MOV.
extension PhotoModel {
  /// The records of the item's files: its own, then a Live Photo's MOV.
  public var records: [PhotoRecord] { [record] + (motion.map { [$0] } ?? []) }

  /// Where the item's encrypted blobs lie: each file's original and thumbnail (a MOV's
  /// when the model knows its folders).
  public var blobURLs: [URL] {
    [photoURL, thumbURL] + [motionPhotoURL, motionThumbURL].compactMap { $0 }
  }
}
