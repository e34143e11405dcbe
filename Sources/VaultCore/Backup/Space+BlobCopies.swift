extension Space {
  /// Why a copy (downloaded from a backup) of one of this space's blobs does not
  /// authenticate to its last byte; nil when it does, or when `relativePath` (`<tag>/Photo/<id>`,
  /// relative to the vault folder) is not a blob of this space.
  public func authenticateCopy(of relativePath: String, at copy: String) -> String? {
    let parts = relativePath.split(separator: "/").map(String.init)
    guard parts.count == 3, parts[0] == tag, let id = BlobID(hex: parts[2]) else { return nil }
    do {
      switch parts[1] {
      case Space.photoFolder:
        try OriginalBlobReader(path: copy, id: id, master: master, what: relativePath).readContent { _ in }
      case Space.thumbFolder:
        let reader = try BlobReader(
          path: copy, kind: .thumbnail, key: master.blobKey(kind: .thumbnail, id: id), what: relativePath)
        while try reader.nextBytes() != nil {}
      default:
        return nil
      }
      return nil
    } catch VaultError.damagedBlob(_, let reason) {
      return reason
    } catch {
      return "\(error)"
    }
  }
}
