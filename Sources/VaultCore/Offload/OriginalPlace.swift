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

  /// The photos whose original is on the remote: a stub in `Offloaded/` and no `Photo/<id>`
  /// (one listing of a folder that holds only the offloaded, and a look-up for each).
  func remoteOriginals() -> Set<BlobID> {
    guard let names = try? listVaultFolder(offloadedDirectory) else { return [] }
    return Set(names.compactMap(BlobID.init(hex:)).filter { !fileExists(photoPath($0)) })
  }
}

extension Space {
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
