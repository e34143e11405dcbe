import Foundation

/// A space's blobs: its folder, the photo and thumbnail folders in it, and the master key
/// that opens them; what reading and writing a photo's original and thumbnail needs, and
/// nothing that changes. Threads that read or write blobs (an export's and an import's
/// workers, the viewer's preloader and playback, the mount's FUSE threads) are handed this
/// value, never the `Space`.
struct SpaceBlobs: Sendable {
  let directory: String
  /// The folder the space was opened on (see `ensureInPlace`).
  let folder: FolderIdentity
  let master: MasterKey
  /// The remote offloaded originals are read from (the journal's latest `offloadRemote`).
  var offloadRemote: String?

  var photoDirectory: String { directory + "/" + Space.photoFolder }
  var thumbDirectory: String { directory + "/" + Space.thumbFolder }
  var offloadedDirectory: String { directory + "/" + Space.offloadedFolder }
  func photoPath(_ id: BlobID) -> String { photoDirectory + "/" + id.hex }
  func thumbPath(_ id: BlobID) -> String { thumbDirectory + "/" + id.hex }
  func stubPath(_ id: BlobID) -> String { offloadedDirectory + "/" + id.hex }

  /// Describes a photo in error messages.
  func describe(_ record: PhotoRecord) -> String {
    "photo '\(record.name)' (\(Space.photoFolder)/\(record.id))"
  }

  /// Throws `.spaceMoved` when the space's path no longer names the folder it was opened
  /// on (`vault passwd` renamed it, or it was removed): a reader that stays open and fails
  /// to read a blob calls it first, so that it says the space moved, not that a photo is
  /// damaged.
  func ensureInPlace() throws {
    guard FolderIdentity(path: directory) == folder else { throw VaultError.spaceMoved }
  }

  /// `read`'s outcome; when it fails and the space is no longer where it was opened,
  /// `.spaceMoved` instead of its own error.
  func readingInPlace<T>(_ read: () throws -> T) throws -> T {
    do {
      return try read()
    } catch {
      try ensureInPlace()
      throw error
    }
  }
}
