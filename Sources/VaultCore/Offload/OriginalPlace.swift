import Foundation

/// Where a photo's original is (docs/FORMAT.md, "Offloaded originals").
public enum OriginalPlace: String, Sendable {
  /// `Photo/<id>` is there (it wins over a stub).
  case local
  /// Only its stub `Offloaded/<id>` is: the original is read from the space's remote.
  case remote
  /// Neither is there (`vault verify` names it).
  case missing
}

extension SpaceBlobs {
  func place(of id: BlobID) -> OriginalPlace {
    if fileExists(photoPath(id)) { return .local }
    return fileExists(stubPath(id)) ? .remote : .missing
  }

  /// The photos whose original is on the remote (see `remoteOriginals(inSpace:)`).
  func remoteOriginals() -> Set<BlobID> { Self.remoteOriginals(inSpace: directory) }

  /// The photos of the space folder `directory` whose original is on the remote: a stub in
  /// `Offloaded/` and no `Photo/<id>` (one listing of a folder that holds only the
  /// offloaded, and a look-up for each).
  static func remoteOriginals(inSpace directory: String) -> Set<BlobID> {
    let folder = directory + "/" + Space.offloadedFolder
    guard let names = try? listVaultFolder(folder) else { return [] }
    return Set(
      names.compactMap(BlobID.init(hex:)).filter {
        !fileExists(directory + "/" + Space.photoFolder + "/" + $0.hex)
      })
  }
}

extension Space {
  /// Refuses to rename the space folder at `directory` (a new password) while originals
  /// are offloaded: the remote keeps them under `current/<folder name>/Photo/`, where
  /// nothing would look for them afterwards.
  static func refuseRenameWithOffloadedOriginals(_ directory: String) throws {
    let count = SpaceBlobs.remoteOriginals(inSpace: directory).count
    if count > 0 { throw VaultError.offloadedOriginalsNameTheFolder(count: count) }
  }

  /// Where a photo's original is.
  public func place(of id: BlobID) -> OriginalPlace { blobs.place(of: id) }

  /// The photos whose original is on the remote.
  public func remoteOriginals() -> Set<BlobID> { blobs.remoteOriginals() }

  /// The remote offloaded originals are read from, if any was ever given.
  public var offloadRemote: String? { blobs.offloadRemote }

  /// Unlinks the stubs of `ids` (deleted photos), and makes that durable.
  func removeStubs(of ids: Set<BlobID>) throws {
    guard fileExists(blobs.offloadedDirectory) else { return }
    for id in ids { unlink(blobs.stubPath(id)) }
    try syncDirectory(blobs.offloadedDirectory)
  }
}
