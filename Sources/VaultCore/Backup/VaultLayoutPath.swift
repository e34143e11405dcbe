/// The paths a backup's manifest may name: exactly the files of a vault folder that a
/// backup sends. A restore writes below the vault at these paths, so anything else (`..`,
/// `.`, an empty component, a leading `/`, a control character, another name) would let
/// a manifest written by someone holding the remote move or write files outside the vault.
enum VaultLayoutPath {
  /// Whether `path` is `vault.json`, `<tag>/key`, `<tag>/recovery`,
  /// `<tag>/Journal/<s-|j-><id>` or `<tag>/{Photo,Thumb,Offloaded}/<id>`.
  static func isValid(_ path: String) -> Bool {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    switch parts.count {
    case 1:
      return parts[0] == VaultHeader.fileName
    case 2:
      return Vault.isSpaceFolderName(parts[0]) && [Space.keyFile, Space.recoveryFile].contains(parts[1])
    case 3:
      guard Vault.isSpaceFolderName(parts[0]) else { return false }
      if parts[1] == Space.journalFolder { return SpaceJournal.isJournalFile(parts[2]) }
      let blobFolders = [Space.photoFolder, Space.thumbFolder, Space.offloadedFolder]
      return blobFolders.contains(parts[1]) && BlobID(hex: parts[2]) != nil
    default:
      return false
    }
  }
}
