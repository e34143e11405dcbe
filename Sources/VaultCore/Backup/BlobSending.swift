import Dispatch
import Foundation
import Synchronization

/// Sends the blobs a remote lacks with one `rclone copy --files-from-raw` from the vault
/// folder, and hashes each (MD5) on another thread while rclone sends them: blobs never
/// change once named, so the bytes hashed are the bytes sent. A blob that rclone did not
/// report copied, or that was gone when it was to be hashed (deleted for good meanwhile),
/// is reported as vanished.
struct BlobSending {
  let rclone: Rclone
  let remote: RemoteLocation
  let vault: String
  /// Where the list of files for rclone is written.
  let staging: String

  /// What a sending did.
  struct Outcome {
    /// The blobs sent, with the size and MD5 of their bytes.
    var sent: [String: BackupManifest.Entry] = [:]
    /// Blobs gone (or changed) since they were listed.
    var vanished: [String] = []
    var progress = RcloneProgress()
  }

  /// Sends `blobs` (path → the size listed) to `current/`.
  func send(_ blobs: [String: Int64], progress: (RcloneProgress) -> Void) throws -> Outcome {
    guard !blobs.isEmpty else { return Outcome() }
    let paths = blobs.keys.sorted()
    let list = try Rclone.writeFileList(paths, to: staging + "/blobs.list")
    let hashes = Mutex<[String: Result<(size: Int64, md5: String)?, Error>]>([:])
    let hashed = DispatchGroup()
    let vault = vault
    DispatchQueue.global().async(group: hashed) {
      for path in paths {
        let result = Result { try FileMD5.of(vault + "/" + path) }
        hashes.withLock { $0[path] = result }
      }
    }
    let sent: (progress: RcloneProgress, files: [String])
    do {
      sent = try rclone.transferNamingFiles(
        "copy", ["--files-from-raw", list, "--no-check-dest", "--no-traverse"] + Rclone.vaultHashesItself,
        [Rclone.localOperand(vault), remote.current],
        remote: remote.text, progress: progress)
    } catch {
      hashed.wait()
      throw error
    }
    hashed.wait()
    var outcome = Outcome(progress: sent.progress)
    let copied = Set(sent.files)
    for (path, result) in hashes.withLock({ $0 }) {
      // Only a blob rclone copied and that was hashed whole is sent: one that vanished
      // before either read it is not on the remote, or its hash is not known.
      guard copied.contains(path), let hash = try result.get(), hash.size == blobs[path] else {
        outcome.vanished.append(path)
        continue
      }
      outcome.sent[path] = BackupManifest.Entry(size: hash.size, md5: hash.md5)
    }
    return outcome
  }
}
