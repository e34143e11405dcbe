import Foundation

/// What a backup's remote holds, from one listing of it whole (`rclone lsjson -R`): one
/// connection where three listings would take three, which over SFTP or S3 is most of what
/// an incremental backup costs.
struct RemoteTree {
  /// The files of `current/`, by path relative to it.
  var current: [String: RemoteFile] = [:]
  /// The folders of `removed/`, by name.
  var removedFolders: [String] = []
  /// Whether `incoming/` holds a file (a killed run's).
  var incomingHasFiles = false
  var hasManifest = false

  /// Lists `remote`; an empty tree when it is not there yet.
  static func list(_ remote: RemoteLocation, rclone: Rclone) throws -> RemoteTree {
    var tree = RemoteTree()
    let options = ["-R", "--no-mimetype", "--no-modtime"]
    for entry in try rclone.listing(options, remote.path(""), remote: remote) ?? [] {
      guard let path = entry["Path"] as? String else { continue }
      let isFolder = entry["IsDir"] as? Bool ?? false
      let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
      switch (parts.first, parts.count, isFolder) {
      case (RemoteLocation.currentFolder, 2, false):
        let size = (entry["Size"] as? NSNumber)?.int64Value ?? -1
        tree.current[parts[1]] = RemoteFile(size: size, md5: nil)
      case (RemoteLocation.removedFolder, 2, true) where !parts[1].contains("/"):
        tree.removedFolders.append(parts[1])
      case (RemoteLocation.incomingFolder, 2, false):
        tree.incomingHasFiles = true
      case (RemoteLocation.manifestFile, 1, false):
        tree.hasManifest = true
      default:
        continue
      }
    }
    return tree
  }
}
