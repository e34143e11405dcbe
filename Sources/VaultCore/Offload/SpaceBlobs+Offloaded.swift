import Foundation

// Where a photo's original is read from: its file in `Photo/`, or, once offloaded, its
// copy on the space's remote, which its stub in `Offloaded/` sizes (docs/FORMAT.md,
// "Offloaded originals").
extension SpaceBlobs {
  /// The original's blob: the local file when it is there (it wins over a stub), else the
  /// remote copy its stub names. Throws `damagedBlob` naming the photo when neither is there
  /// or the stub is not one vault writes.
  func originalBlob(_ record: PhotoRecord) throws -> any BlobSource {
    let path = photoPath(record.id)
    do {
      return try LocalBlobFile(path: path)
    } catch VaultError.io(_, let reason) {
      guard !fileExists(path), let stub = try stub(of: record) else {
        throw VaultError.damagedBlob(
          what: describe(record), reason: fileExists(path) ? reason : "its file is missing")
      }
      return try remoteBlob(of: record.id, stub: stub, what: describe(record))
    }
  }

  /// The stub of an offloaded original, nil when it has none.
  func stub(of record: PhotoRecord) throws -> OffloadStub? {
    let path = stubPath(record.id)
    guard fileExists(path) else { return nil }
    guard let stub = OffloadStub(text: try readWholeFile(path, limit: OffloadStub.lengthLimit)) else {
      throw VaultError.damagedBlob(
        what: describe(record),
        reason: "its stub \(Space.offloadedFolder)/\(record.id) is not one vault writes")
    }
    return stub
  }

  /// Where the remote keeps the original of `id`: as `vault backup` lays the vault out.
  func remotePhotoPath(_ id: BlobID) -> String {
    "current/" + spaceTag + "/" + Space.photoFolder + "/" + id.hex
  }

  /// The space's folder name.
  var spaceTag: String { String(directory.split(separator: "/").last ?? "") }

  private func remoteBlob(of id: BlobID, stub: OffloadStub, what: String) throws -> RemoteBlobFile {
    guard let remote = offloadRemote else {
      throw VaultError.damagedBlob(what: what, reason: "it is offloaded, but the space names no remote")
    }
    return RemoteBlobFile(
      path: remotePhotoPath(id), length: stub.size, reader: RcloneRangeReader(remote: remote))
  }
}
