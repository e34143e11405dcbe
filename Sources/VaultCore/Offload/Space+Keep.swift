import Foundation

/// What `keep` did: the photos whose originals came back, those that were on the disk
/// already, and those that failed, each with its error.
public struct KeepOutcome {
  public var kept: [PhotoRecord] = []
  public var alreadyLocal: [PhotoRecord] = []
  public var failed: [(record: PhotoRecord, error: Error)] = []
}

extension Space {
  /// Brings offloaded originals back to the disk (docs/FORMAT.md, "Offloaded originals"):
  /// each is downloaded whole into `Photo/.tmp-…`, authenticated (every chunk, its record
  /// and its content hash), synced and renamed into place, then its stub is unlinked. One
  /// that fails is named and the others go on; a command killed at any moment leaves each
  /// either remote or local (a `.tmp-` file is tidied by the next writer).
  /// `progress` is told how each download goes.
  public func keep(_ records: [PhotoRecord], progress: (RcloneProgress) -> Void = { _ in }) -> KeepOutcome {
    precondition(access == .write)
    var outcome = KeepOutcome()
    // Sizes only: a copy of another size is refused before it is downloaded (a server may
    // serve a copy padded to any length).
    let copies = RemoteCopyListing(blobs: blobs, hashes: false)
    for record in records {
      guard blobs.place(of: record.id) == .remote else {
        outcome.alreadyLocal.append(record)
        continue
      }
      do {
        try bringBack(record, listedIn: copies, progress: progress)
        outcome.kept.append(record)
      } catch {
        outcome.failed.append((record, error))
      }
    }
    return outcome
  }

  private func bringBack(
    _ record: PhotoRecord, listedIn copies: RemoteCopyListing, progress: (RcloneProgress) -> Void
  ) throws {
    guard let remote = blobs.offloadRemote else {
      throw VaultError.damagedBlob(
        what: describe(record), reason: "it is offloaded, but the space names no remote")
    }
    guard let stub = try blobs.stub(of: record.id, what: describe(record)) else {
      throw VaultError.damagedBlob(what: describe(record), reason: "its stub is gone")
    }
    if let problem = try copies.problem(with: stub, of: record.id) {
      throw VaultError.damagedBlob(what: describe(record), reason: problem)
    }
    let temporary = photoDirectory + "/" + TemporaryFile.prefix + hexString(Sodium.randomBytes(8))
    defer { unlink(temporary) }
    let location = try RemoteLocation(remote)
    try Rclone().run(
      "copyto", [], [location.path(blobs.remotePhotoPath(record.id)), Rclone.localOperand(temporary)],
      remote: remote)
    try checkDownloaded(temporary, of: record)
    if rename(temporary, photoPath(record.id)) != 0 { throw VaultError.posix(photoPath(record.id)) }
    try syncDirectory(photoDirectory)
    unlink(blobs.stubPath(record.id))
    try syncDirectory(blobs.offloadedDirectory)
  }

  /// Authenticates every byte of the downloaded blob as this photo's original, then makes
  /// its bytes durable.
  private func checkDownloaded(_ path: String, of record: PhotoRecord) throws {
    let reader = try OriginalBlobReader(path: path, id: record.id, master: master, what: describe(record))
    guard reader.record.contentHash == record.contentHash, reader.record.bytes == record.bytes else {
      throw VaultError.damagedBlob(
        what: describe(record), reason: "its copy on the remote holds another record")
    }
    try reader.readContent { _ in }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw VaultError.posix(path) }
    defer { close(descriptor) }
    // Private as every blob vault writes, whatever mode rclone gave it.
    if fchmod(descriptor, 0o600) != 0 || fsync(descriptor) != 0 { throw VaultError.posix(path) }
  }
}
