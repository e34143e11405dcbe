extension BackupManifest {
  /// The largest manifest read (about 600,000 files); docs/LIMITS.md says so.
  static let readLimit = 64 << 20

  /// The manifest a remote holds; nil when it has none.
  static func download(from remote: RemoteLocation, rclone: Rclone) throws -> BackupManifest? {
    do {
      let bytes = try rclone.read([], remote.manifest, remote: remote.text, limit: readLimit)
      return try BackupManifest(text: bytes, source: remote.manifest)
    } catch RemoteError.notFound {
      return nil
    }
  }
}
