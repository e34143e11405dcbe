import Foundation

/// The files of a vault that a backup carries, as they were at one moment in each space:
/// under the space's shared lock (as readers take it, so no writer is midway), its small
/// files (journal, key, recovery key) are copied into a staging folder and its blobs are
/// listed. Every blob a captured journal names is in the listing: import renames blobs
/// into place before it appends `added`. Never a `.tmp-` file, never `key-next`.
struct VaultCapture {
  /// The small files copied into the staging folder (the journal, keys, `vault.json`): by
  /// path relative to the vault folder, with the size and MD5 of the copy.
  var staged: [String: BackupManifest.Entry] = [:]
  /// The blobs (`<tag>/Photo/<id>`, `<tag>/Thumb/<id>`) by path, with their size.
  var blobs: [String: Int64] = [:]
  /// Originals offloaded to a remote (`<tag>/Photo/<id>` whose stub is in `Offloaded/`):
  /// the remote's copy stays, with the size and MD5 its stub records (nil when unreadable).
  var offloaded: [String: BackupManifest.Entry] = [:]

  /// The small files a space folder has besides its folders.
  static let spaceFiles = [Space.keyFile, Space.recoveryFile, Space.indexFile]

  /// Every path the capture keeps in `current/` (made at each call: keep it).
  func keptPaths() -> Set<String> { Set(staged.keys).union(blobs.keys).union(offloaded.keys) }

  /// Captures the vault at `vault` into `staging` (an empty folder).
  static func take(of vault: String, into staging: String) throws -> VaultCapture {
    var capture = VaultCapture()
    try capture.copy(VaultHeader.fileName, from: vault, to: staging)
    for name in try listVaultFolder(vault, followingLink: true).sorted() where Vault.isSpaceFolderName(name) {
      guard isDirectory(vault + "/" + name) else { continue }
      try capture.takeSpace(name, of: vault, into: staging)
    }
    return capture
  }

  private mutating func takeSpace(_ tag: String, of vault: String, into staging: String) throws {
    let folder = vault + "/" + tag
    let lock = try DirectoryLock(path: folder, mode: .shared)
    defer { withExtendedLifetime(lock) {} }
    try makeDirectories(staging + "/" + tag + "/" + Space.journalFolder)
    for name in Self.spaceFiles { try copy(tag + "/" + name, from: vault, to: staging) }
    for name in try names(in: folder + "/" + Space.journalFolder) where SpaceJournal.isJournalFile(name) {
      try copy(tag + "/" + Space.journalFolder + "/" + name, from: vault, to: staging)
    }
    for kind in [Space.photoFolder, Space.thumbFolder] {
      for name in try names(in: folder + "/" + kind) where BlobID(hex: name) != nil {
        let path = tag + "/" + kind + "/" + name
        if let size = Self.regularFileSize(vault + "/" + path) { blobs[path] = size }
      }
    }
    for name in try names(in: folder + "/" + Space.offloadedFolder) where BlobID(hex: name) != nil {
      let original = tag + "/" + Space.photoFolder + "/" + name
      guard blobs[original] == nil else { continue }
      offloaded[original] = Self.stub(folder + "/" + Space.offloadedFolder + "/" + name)
    }
  }

  /// Copies `relative` of the vault into the staging folder, if it is there.
  private mutating func copy(_ relative: String, from vault: String, to staging: String) throws {
    guard let (size, md5) = try FileMD5.copy(vault + "/" + relative, to: staging + "/" + relative) else {
      return
    }
    staged[relative] = BackupManifest.Entry(size: size, md5: md5)
  }

  /// The names in a folder of a space; none when it is not there.
  private func names(in folder: String) throws -> [String] {
    guard isDirectory(folder) else { return [] }
    return try listVaultFolder(folder)
  }

  private static func regularFileSize(_ path: String) -> Int64? {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int64(info.st_size)
  }

  /// What an offload stub records of the remote's copy (read as `OffloadStub` reads it);
  /// the size alone is unknown when the stub is unreadable.
  private static func stub(_ path: String) -> BackupManifest.Entry {
    guard let text = try? readWholeFile(path, limit: OffloadStub.lengthLimit),
      let stub = OffloadStub(text: text)
    else { return BackupManifest.Entry(size: -1, md5: nil) }
    return BackupManifest.Entry(size: Int64(stub.size), md5: stub.md5)
  }
}
