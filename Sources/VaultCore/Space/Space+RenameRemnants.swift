import Foundation

/// What a sync engine leaves of a password change (docs/FORMAT.md, "Changing the password"):
/// `vault passwd` on one copy renames the space's folder `<tagP>` to `<tagQ>`, which an
/// engine carries to the other copies as the files of `<tagP>` deleted and those of `<tagQ>`
/// made. A command that wrote into `<tagP>` on another copy meanwhile (an import, a
/// selection) made files the renaming copy never had. Syncthing cannot delete `<tagP>` there,
/// and brings it back everywhere holding only those files, without a key: they belong to
/// the space, under its new name, and the space's next writer moves them in and removes the
/// old folder.
///
/// Only a folder without a key is taken in. One with a key is a space of its own to every
/// password that opens it (Unison's kept conflict, a restored backup): folding it into this
/// space, or this space into it, could hand what was added under a new password to an old
/// one, and which of the two is newer is not something a copy can tell.
///
/// Anyone with the vault folder (a sync peer) can make such a folder, with copies of the
/// space's own journal in it. So a folder is taken in only when it is a real folder (not a
/// link) whose journal authenticates; only regular files move; and a file never replaces one
/// the space has, except a journal segment that grew (the space's copy is a prefix of it: a
/// command on another copy appended to it after the rename) by records that authenticate,
/// compared a piece at a time (`JournalSegment.growth`). What cannot be taken in is left and
/// named, and never stops the space's own changes.
extension Space {
  /// Whether the vault folder holds a folder named like a space with neither `key` nor
  /// `key-next`: no password opens it. A reader checks this much before it looks further
  /// (see `Vault.unlock`).
  static func hasKeylessFolders(in vaultPath: String) -> Bool {
    !keylessFolders(in: vaultPath).isEmpty
  }

  /// Every real folder (not a link to one) of the vault named like a space, without a key.
  static func keylessFolders(in vaultPath: String) -> [String] {
    ((try? listVaultFolder(vaultPath)) ?? []).filter(Vault.isSpaceFolderName).map { vaultPath + "/" + $0 }
      .filter { isRealFolder($0) && !hasKeyFile($0) }
  }

  /// Whether a space's folder has a key file (`key`, or `key-next` while a change runs).
  static func hasKeyFile(_ folder: String) -> Bool {
    fileExists(folder + "/" + keyFile) || fileExists(folder + "/" + nextKeyFile)
  }

  /// The keyless folders holding files of this space that a rename left behind, each with
  /// why a writer could take none of its files in (nil when it could).
  func foldersLeftByRenames() -> [(folder: String, blocked: VaultError?)] {
    Self.keylessFolders(in: parentFolder(directory)).filter { $0 != directory && isLeftover($0) }
      .map { ($0, whyNoFileMoves(from: $0)) }
  }

  /// Why a writer would move none of `folder`'s files into this space: every folder of it
  /// holding a file the space lacks (or a longer copy of a journal file) is one this
  /// process cannot write, as moving a file out needs (read-only media, a folder a sync
  /// made read-only). nil when a file can move, or none needs to (the writer then only
  /// removes the folder).
  private func whyNoFileMoves(from folder: String) -> VaultError? {
    var blocked: VaultError?
    for name in [Self.journalFolder, Self.photoFolder, Self.thumbFolder] {
      let source = folder + "/" + name
      let target = directory + "/" + name
      guard Self.isRealFolder(source), let names = try? listVaultFolder(source),
        names.contains(where: {
          Self.wouldMove(source + "/" + $0, over: target + "/" + $0, mayGrow: name == Self.journalFolder)
        })
      else { continue }
      if faccessat(AT_FDCWD, source, W_OK, AT_EACCESS) == 0 { return nil }
      blocked = blocked ?? .io(path: folder, reason: Self.notTakenIn(VaultError.posix(source)))
    }
    return blocked
  }

  /// Whether `moveFiles` would try to move `file` over `existing`: a regular file, not a
  /// temporary one, that the space lacks, or (`mayGrow`: a journal file) that is longer.
  private static func wouldMove(_ file: String, over existing: String, mayGrow: Bool) -> Bool {
    var info = stat()
    guard !(file as NSString).lastPathComponent.hasPrefix(TemporaryFile.prefix), lstat(file, &info) == 0,
      info.st_mode & S_IFMT == S_IFREG
    else { return false }
    return !fileExists(existing) || (mayGrow && Int(info.st_size) > fileSize(existing))
  }

  /// Moves into this space (opened to write) the files of every keyless folder of the vault
  /// whose journal authenticates with this space's master key, removes that folder, and
  /// reads the journal again. Each such folder is locked first; one in use is left for a
  /// later writer. A folder whose files cannot all be moved (a read-only one a sync brought)
  /// is left where it is, and a longer copy of a segment that adds no record goes with its
  /// folder: anyone with the vault folder can make either, and neither stops the space's own
  /// changes. Each is named in `leftoversNotTakenIn`. Returns whether any folder was taken in.
  @discardableResult
  func adoptFilesLeftByRenames() throws -> Bool {
    precondition(access == .write)
    let vaultPath = parentFolder(directory)
    leftoversNotTakenIn = []
    var adopted = false
    for folder in Self.keylessFolders(in: vaultPath) where folder != directory {
      guard let lock = try? DirectoryLock(path: folder, mode: .exclusive, waitingAtMost: 0),
        isLeftover(folder)
      else { continue }
      do {
        try moveFilesLeft(in: folder)
        removeTree(folder)
        adopted = true
      } catch {
        // Whatever moved before the failure is the space's now: read again below.
        adopted = true
        leftoversNotTakenIn.append(.io(path: folder, reason: Self.notTakenIn(error)))
      }
      withExtendedLifetime(lock) {}
    }
    guard adopted else { return false }
    try syncDirectory(vaultPath)
    try load()
    return true
  }

  /// Why a folder left by a password change was not taken in, and what to do about it.
  private static func notTakenIn(_ error: Error) -> String {
    "the files a password change on another copy left in this folder were not all taken into the space "
      + "(\(error)); make the folder writable for the space's next command to take them in, "
      + "or remove it if no copy of yours wrote there"
  }

  /// Moves the files of the keyless `folder` into this space: its journal, then its photos
  /// and thumbnails. A segment the space has replaces the space's only when it grew; a
  /// longer one that did not is named in `leftoversNotTakenIn`.
  private func moveFilesLeft(in folder: String) throws {
    let journalKey = master.journalKey()
    try moveFiles(from: folder + "/" + Self.journalFolder, into: directory + "/" + Self.journalFolder) {
      name, existing, incoming in
      guard let id = SpaceJournal.id(in: name, prefix: JournalSegment.namePrefix) else { return false }
      switch JournalSegment.growth(of: incoming, over: existing, id: id, key: journalKey) {
      case .grew:
        return true
      case .notLonger:
        return false
      case .refused(let reason):
        leftoversNotTakenIn.append(.io(path: incoming, reason: "not taken into the space: " + reason))
        return false
      }
    }
    for name in [Self.photoFolder, Self.thumbFolder] {
      try moveFiles(from: folder + "/" + name, into: directory + "/" + name) { _, _, _ in false }
    }
  }

  /// Whether a folder is this space's: its journal has files, and they open with this
  /// space's master key.
  private func isLeftover(_ folder: String) -> Bool {
    let journalPath = folder + "/" + Self.journalFolder
    guard Self.isRealFolder(journalPath),
      let journal = try? SpaceJournal.load(directory: journalPath, master: master)
    else { return false }
    return journal.hasAuthenticatedContent
  }

  /// Moves each regular file of `source` (a real folder) into `target` under its own name,
  /// then syncs `target`. A name `target` has already is left (and goes with the folder)
  /// unless `replaces(name, existing, incoming)` says the incoming file supersedes it.
  /// Temporary files are left too.
  private func moveFiles(
    from source: String, into target: String,
    replaces: (_ name: String, _ existing: String, _ incoming: String) -> Bool
  ) throws {
    guard Self.isRealFolder(source) else { return }
    try makeDirectories(target)
    for name in try listVaultFolder(source) where !name.hasPrefix(TemporaryFile.prefix) {
      let from = source + "/" + name
      let to = target + "/" + name
      var info = stat()
      guard lstat(from, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
      if fileExists(to) && !replaces(name, to, from) { continue }
      guard rename(from, to) == 0 else {
        throw VaultError.io(
          path: from, reason: "cannot be moved into '\(target)': " + String(cString: strerror(errno)))
      }
    }
    try syncDirectory(target)
  }

  /// Whether `path` is a folder itself, not a link to one.
  static func isRealFolder(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }
}
