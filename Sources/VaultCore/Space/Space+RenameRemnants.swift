import Foundation

/// What a sync engine leaves of a password change (docs/FORMAT.md, "Changing the password"):
/// `vault passwd` on one copy renames the space's folder `<tagP>` to `<tagQ>`, which an
/// engine carries to the other copies as the files of `<tagP>` deleted and those of `<tagQ>`
/// made. A command that wrote into `<tagP>` on another copy meanwhile (an import, a
/// selection) made files the renaming copy never had. Syncthing cannot delete `<tagP>` there,
/// and brings it back everywhere holding only those files, without a key; Unison reports it
/// as a conflict, and keeping that copy's side brings back the whole folder, key included.
/// Either way its photos and changes belong to the space, under its new name: the space's
/// next writer moves them in and removes the old folder.
extension Space {
  /// Whether the vault folder holds a folder named like a space with neither `key` nor
  /// `key-next`: no password opens it, and only a sync engine makes one. A reader checks
  /// this much before it opens a space (see `Vault.unlock`).
  static func hasKeylessFolders(in vaultPath: String) -> Bool {
    spaceFolders(in: vaultPath).contains { !hasKeyFile($0) }
  }

  /// Every folder of the vault named like a space.
  static func spaceFolders(in vaultPath: String) -> [String] {
    ((try? listVaultFolder(vaultPath)) ?? []).filter(Vault.isSpaceFolderName).map { vaultPath + "/" + $0 }
      .filter(isDirectory)
  }

  /// Whether a space's folder has a key file (`key`, or `key-next` while a change runs).
  static func hasKeyFile(_ folder: String) -> Bool {
    fileExists(folder + "/" + keyFile) || fileExists(folder + "/" + nextKeyFile)
  }

  /// Moves into this space (opened to write) the files of every other space folder of the
  /// vault whose journal authenticates with this space's master key (the same under every
  /// password the space had: that folder is this space under an old name), removes that
  /// folder, and reads the journal again. Each such folder is locked first; one in use (a
  /// command still open on it under the old password) is left for a later writer. Another
  /// space's folder is left alone (its journal does not open with this key). Returns
  /// whether anything was moved in.
  @discardableResult
  func adoptFilesLeftByRenames() throws -> Bool {
    precondition(access == .write)
    let vaultPath = parentFolder(directory)
    var adopted = false
    for folder in Self.spaceFolders(in: vaultPath) where folder != directory {
      guard let lock = try? DirectoryLock(path: folder, mode: .exclusive, waitingAtMost: 0),
        isLeftover(folder)
      else { continue }
      for name in [Self.journalFolder, Self.photoFolder, Self.thumbFolder] {
        try moveFiles(from: folder + "/" + name, into: directory + "/" + name)
      }
      removeTree(folder)
      withExtendedLifetime(lock) {}
      adopted = true
    }
    guard adopted else { return false }
    try syncDirectory(vaultPath)
    try load()
    return true
  }

  /// Whether a folder is this space's: its journal has files, and they open with this
  /// space's master key.
  private func isLeftover(_ folder: String) -> Bool {
    let journalPath = folder + "/" + Self.journalFolder
    guard let journal = try? SpaceJournal.load(directory: journalPath, master: master) else { return false }
    return journal.hasAuthenticatedContent
  }

  /// Moves each regular file of `source` into `target` under its own name (random ids: a
  /// name found in both is the same file; the longer copy is kept, since a journal segment
  /// only grows), then syncs `target`. Temporary files are left, and go with the folder.
  private func moveFiles(from source: String, into target: String) throws {
    guard isDirectory(source) else { return }
    try makeDirectories(target)
    for name in try listVaultFolder(source) where !name.hasPrefix(TemporaryFile.prefix) {
      let from = source + "/" + name
      let to = target + "/" + name
      var info = stat()
      guard lstat(from, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
      if fileExists(to) && fileSize(to) >= fileSize(from) { continue }
      guard rename(from, to) == 0 else { throw VaultError.posix(to) }
    }
    try syncDirectory(target)
  }
}
