import Synchronization

/// The copies a space's remote holds of its offloaded originals, listed once (sizes and
/// MD5s, `rclone lsjson`) when first asked for, by any of the threads that check photos:
/// what `verify --quick` compares each stub with, without a download.
final class RemoteCopyListing: Sendable {
  private let blobs: SpaceBlobs
  /// Whether the listing has the copies' MD5s (on some backends a download of each).
  private let hashes: Bool
  private let listing = Mutex<Result<[String: RemoteFile], any Error>?>(nil)

  init(blobs: SpaceBlobs, hashes: Bool = true) {
    self.blobs = blobs
    self.hashes = hashes
  }

  /// Why the stub of `id` does not describe its copy on the remote (missing, another size,
  /// another MD5), or nil when it does. Throws when the remote cannot be listed.
  func problem(with stub: OffloadStub, of id: BlobID) throws -> String? {
    let location = try RemoteLocation(blobs.offloadRemote ?? "")
    guard let copy = try copies(on: location)[id.hex] else { return "its copy on '\(location)' is missing" }
    guard copy.size == Int64(stub.size) else {
      return "its copy on '\(location)' holds \(copy.size) bytes, its stub says \(stub.size)"
    }
    if let md5 = copy.md5, md5 != stub.md5 {
      return "its copy on '\(location)' is not the one offloaded (another MD5)"
    }
    return nil
  }

  private func copies(on location: RemoteLocation) throws -> [String: RemoteFile] {
    try listing.withLock { listed in
      let result =
        listed
        ?? Result {
          try Rclone().listFiles(in: location.path(blobs.remotePhotoFolder), remote: location, hashes: hashes)
            ?? [:]
        }
      listed = result
      return try result.get()
    }
  }
}
