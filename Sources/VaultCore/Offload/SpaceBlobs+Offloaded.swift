import Foundation

// Where a photo's original is read from: its file in `Photo/`, or, once offloaded, its
// copy on the space's remote, which its stub in `Offloaded/` sizes (docs/FORMAT.md,
// "Offloaded originals").
extension SpaceBlobs {
  /// The original's blob: the local file when it is there (it wins over a stub), else the
  /// remote copy its stub names. Throws `damagedBlob` naming the photo when neither is there
  /// or the stub is not one vault writes.
  func originalBlob(_ record: PhotoRecord) throws -> any BlobSource {
    try originalBlob(id: record.id, what: describe(record))
  }

  /// The same for the original of `id`, which `what` names in errors.
  func originalBlob(id: BlobID, what: String) throws -> any BlobSource {
    let path = photoPath(id)
    do {
      return try LocalBlobFile(path: path)
    } catch VaultError.io(_, let reason) {
      guard !fileExists(path), let stub = try stub(of: id, what: what) else {
        throw VaultError.damagedBlob(what: what, reason: fileExists(path) ? reason : "its file is missing")
      }
      return try remoteBlob(of: id, stub: stub, what: what)
    }
  }

  /// The stub of an offloaded original, nil when it has none.
  func stub(of id: BlobID, what: String) throws -> OffloadStub? {
    let path = stubPath(id)
    guard fileExists(path) else { return nil }
    guard let stub = OffloadStub(text: try readWholeFile(path, limit: OffloadStub.lengthLimit)) else {
      throw VaultError.damagedBlob(
        what: what, reason: "its stub \(Space.offloadedFolder)/\(id) is not one vault writes")
    }
    return stub
  }

  /// Where the remote keeps the original of `id`: as `vault backup` lays the vault out.
  func remotePhotoPath(_ id: BlobID) -> String { remotePhotoFolder + "/" + id.hex }

  /// The remote folder of the space's originals.
  var remotePhotoFolder: String { RemoteLocation.currentFolder + "/" + spaceTag + "/" + Space.photoFolder }

  /// The space's folder name.
  var spaceTag: String { String(directory.split(separator: "/").last ?? "") }

  private func remoteBlob(of id: BlobID, stub: OffloadStub, what: String) throws -> RemoteBlobFile {
    guard let remote = offloadRemote else {
      throw VaultError.damagedBlob(what: what, reason: "it is offloaded, but the space names no remote")
    }
    return RemoteBlobFile(
      path: remotePhotoPath(id), length: stub.size, reader: RcloneRangeReader(try RemoteLocation(remote)))
  }
}
