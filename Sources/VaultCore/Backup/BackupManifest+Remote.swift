extension BackupManifest {
  /// The manifest a remote holds; nil when it has none.
  static func download(from remote: RemoteLocation, rclone: Rclone) throws -> BackupManifest? {
    do {
      let bytes = try rclone.read([], remote.manifest, remote: remote.text, limit: 1 << 30)
      return try BackupManifest(text: bytes, source: remote.manifest)
    } catch RemoteError.notFound {
      return nil
    }
  }
}
