import Foundation

/// The remote copies of a space's originals, as `offload` needs them: those the remote
/// lacks are sent (`BlobSending`, as `vault backup` sends blobs), then each copy is checked
/// whole against the local bytes; what is left is a stub for each copy that checked.
struct OffloadCopies {
  let blobs: SpaceBlobs
  let remote: RemoteLocation
  let rclone = Rclone()

  /// What `send` found: a stub, or why not, for each original it was given; and how many
  /// it sent.
  struct Checked {
    var stubs: [BlobID: Result<OffloadStub, Error>] = [:]
    var sent = 0
  }

  private var folder: String { blobs.remotePhotoFolder }

  /// Sends the originals of `records` the remote lacks (or holds at another size), then
  /// checks every copy.
  func send(_ records: [PhotoRecord], progress: (RcloneProgress) -> Void) throws -> Checked {
    var checked = Checked()
    let local = hashes(of: records, failures: &checked)
    let before = try rclone.listFiles(in: remote.path(folder), remote: remote) ?? [:]
    let lacking = local.filter { before[$0.key.hex]?.size != $0.value.size }
    let vault = parentFolder(blobs.directory)
    let staging = try StagingFolder(purpose: "offload")
    let sending = BlobSending(rclone: rclone, remote: remote, vault: vault, staging: staging.path)
    let paths = Dictionary(uniqueKeysWithValues: lacking.map { (relativePath($0.key), $0.value.size) })
    checked.sent = try sending.send(paths, progress: progress).sent.count
    let after = try rclone.listFiles(in: remote.path(folder), remote: remote, hashes: true) ?? [:]
    for (id, hash) in local {
      checked.stubs[id] = Result { try check(id, local: hash, remote: after[id.hex]) }
    }
    return checked
  }

  /// The size and MD5 of each original's bytes on the disk; one that cannot be read is
  /// named in `failures`.
  private func hashes(of records: [PhotoRecord], failures: inout Checked) -> [BlobID: (
    size: Int64, md5: String
  )] {
    var result: [BlobID: (size: Int64, md5: String)] = [:]
    for record in records {
      do {
        guard let hash = try FileMD5.of(blobs.photoPath(record.id)) else {
          throw VaultError.damagedBlob(what: blobs.describe(record), reason: "its file is missing")
        }
        result[record.id] = hash
      } catch {
        failures.stubs[record.id] = .failure(error)
      }
    }
    return result
  }

  /// The original's path relative to the vault folder, as `current/` keeps it.
  private func relativePath(_ id: BlobID) -> String {
    blobs.spaceTag + "/" + Space.photoFolder + "/" + id.hex
  }

  /// The stub of a copy whose size and MD5 are the local bytes'; the MD5 is computed from a
  /// download where the backend keeps none.
  private func check(_ id: BlobID, local: (size: Int64, md5: String), remote copy: RemoteFile?) throws
    -> OffloadStub
  {
    let path = blobs.remotePhotoPath(id)
    guard let copy else { throw RemoteError.notFound(remote: remote.text, path: path) }
    guard copy.size == local.size else {
      throw RemoteError.failed(
        remote: remote.text, reason: "\(path) holds \(copy.size) bytes, the original \(local.size)")
    }
    let md5 = try copy.md5 ?? downloadedMD5(path)
    guard md5 == local.md5 else {
      throw RemoteError.failed(remote: remote.text, reason: "\(path) differs from the original (MD5)")
    }
    guard let stub = OffloadStub(size: Int(local.size), md5: local.md5) else {
      throw VaultError.damagedBlob(what: "Photo/\(id)", reason: "it is larger than any original vault writes")
    }
    return stub
  }

  /// The MD5 of a remote file, which rclone computes as it downloads it (`md5sum --download`).
  private func downloadedMD5(_ path: String) throws -> String {
    let output = try rclone.run("md5sum", ["--download"], [remote.path(path)], remote: remote.text)
    return String(decoding: output.prefix(32), as: UTF8.self)
  }
}
