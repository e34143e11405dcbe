import Foundation

/// An unlocked space: its master key, its index, and the folder of its blobs. All reads and
/// writes of photos go through here.
public final class Space {
  /// Whether the space is opened to read (shared lock) or to change (exclusive lock).
  public enum Access { case read, write }

  package static let keyFile = "key"
  /// The master key wrapped by a new password, there while `vault passwd` moves the space
  /// to it (see `Vault.changePassword`).
  static let nextKeyFile = "key-next"
  /// Format 1's index: one blob rewritten whole by every change. Upgraded to `Journal/`.
  static let indexFile = "index"
  static let journalFolder = "Journal"
  /// Every writer leaves one of these in the space folder while it works: finding one means a
  /// writer was killed, and the next one tidies after it.
  static let writerMarkPrefix = TemporaryFile.prefix + "writer-"
  static let photoFolder = "Photo"
  static let thumbFolder = "Thumb"
  /// The stubs of originals offloaded to a remote (`OffloadStub`).
  static let offloadedFolder = "Offloaded"
  /// The index is read whole; this bounds what a damaged or forged one can make us allocate.
  static let indexSizeLimit = 512 << 20

  public let directory: String
  package let master: MasterKey
  /// The key that unwrapped the key file (the password's, or a session key's): what
  /// `vault unlock` keeps, and what a writer needs to tell which key file a password
  /// change cut short left current.
  let wrappingKey: SecureBytes?
  let access: Access
  /// Nil once a reader has let go of it (`releaseLock`).
  private var lock: DirectoryLock?
  /// The folder the space was opened on: a reader that stays open checks that its path
  /// still names it (see `ensureInPlace`).
  let folder: FolderIdentity
  /// Its blobs and their key: what threads that read or write photos are handed.
  private(set) var blobs: SpaceBlobs
  /// 1 for a space with a single `index`, 2 for one with a `Journal/`.
  public internal(set) var formatVersion: Int
  /// Format 2's index; nil in format 1 and while the journal is damaged.
  var journal: SpaceJournal?
  /// The space as it is now, for reading: its photos, items, albums and selection (empty
  /// when the index is damaged). Built again at every change (see `publish`).
  public private(set) var catalog: SpaceCatalog
  /// The photos in import order, with their selection: the catalog's.
  public var entries: PhotoEntries { catalog.entries }
  /// Why the index could not be read, if it could not: the space still opens, so that
  /// `verify --repair` can rebuild the index from the originals.
  public internal(set) var indexDamage: VaultError?
  /// What a writer could not take in of the folders and files a password change on another
  /// copy left (see `adoptFilesLeftByRenames`), each naming the folder or file: the space
  /// opened and changes as it is, and the command says so.
  public internal(set) var leftoversNotTakenIn: [VaultError] = []
  /// Whether a writer of this space deletes for good what has been in Recently Deleted past
  /// its retention and grace (`expireTrash`). Off for the commands that act on Recently
  /// Deleted as it was listed: an item shown as due must still be there to restore.
  public var expiresTrash = true
  /// The items this space's writers deleted for good as expired, for the command to name
  /// (`takeExpiredFromTrash`).
  var expiredFromTrash: [(item: TrashItem, name: String)] = []
  /// Set when a writer found items due but deleted none because its clock is behind the
  /// space's latest stamp (`TrashExpiryHold`); the command says so once.
  var trashExpiryHold: TrashExpiryHold?

  /// The hold since the last call, if any: said once.
  public func takeTrashExpiryHold() -> TrashExpiryHold? {
    defer { trashExpiryHold = nil }
    return trashExpiryHold
  }

  /// The items deleted for good as expired since the last call, each with the name it
  /// showed under: each is named once.
  public func takeExpiredFromTrash() -> [(item: TrashItem, name: String)] {
    defer { expiredFromTrash = [] }
    return expiredFromTrash
  }
  /// This writer's mark (see `writerMarkPrefix`), removed when the space is closed.
  var writerMark: String?
  var writerMarkName: String? { writerMark }

  package convenience init(directory: String, wrappingKey: SecureBytes, access: Access) throws {
    // The lock comes first: the key file is read under it, like everything else.
    let lock = try DirectoryLock(path: directory, mode: access == .write ? .exclusive : .shared)
    let master = try Self.unwrapMasterKey(in: directory, with: wrappingKey)
    try self.init(directory: directory, master: master, wrappingKey: wrappingKey, access: access, lock: lock)
  }

  /// Opens a space with the key `vault unlock` kept (no key derivation). The key file, read
  /// under the lock like the rest, must unwrap with it; else the key is stale (or forged).
  convenience init(directory: String, sessionKey: SessionKey, access: Access) throws {
    let lock = try DirectoryLock(path: directory, mode: access == .write ? .exclusive : .shared)
    let keyPath = directory + "/" + Self.keyFile
    guard let keyFile = try? readWholeFile(keyPath, limit: 4096),
      let master = sessionKey.unwrapMaster(keyFile: keyFile)
    else { throw VaultError.staleSessionKey }
    try self.init(
      directory: directory, master: master, wrappingKey: sessionKey.wrappingKey, access: access, lock: lock)
  }

  init(
    directory: String, master: MasterKey, wrappingKey: SecureBytes?, access: Access, lock: DirectoryLock
  ) throws {
    self.directory = directory
    self.access = access
    self.lock = lock
    folder = lock.folder
    self.master = master
    blobs = SpaceBlobs(directory: directory, folder: lock.folder, master: master)
    self.wrappingKey = wrappingKey
    formatVersion = 1
    catalog = SpaceCatalog(
      entries: [], state: nil,
      folders: BlobFolders(
        photo: directory + "/" + Self.photoFolder, thumb: directory + "/" + Self.thumbFolder))
    try load()
  }

  /// Reads the index (format 1) or the journal (format 2) into `entries`.
  func load() throws {
    try Self.requireRealFolders(in: directory)
    formatVersion = Self.formatVersion(of: directory)
    journal = nil
    indexDamage = nil
    do {
      if formatVersion == 2 {
        guard fileExists(journalDirectory) else {
          throw VaultError.damagedIndex(path: journalDirectory, reason: Self.missingJournal)
        }
        let journal = try SpaceJournal.load(directory: directory + "/" + Self.journalFolder, master: master)
        self.journal = journal
        let (entries, imports) = journal.takeEntriesWithImportsFound()
        publish(entries, importsFound: imports)
      } else {
        publish(PhotoEntries(try Self.readIndex(in: directory, master: master).photos))
      }
    } catch let error as VaultError {
      guard case .damagedIndex = error else { throw error }
      publish([])
      indexDamage = error
    }
  }

  /// Why a format-2 space without its `Journal/` does not open.
  static let missingJournal = "the folder is missing (it held the space's photos, albums and selection)"

  /// 2 for a space with a `Journal/` folder, or with neither a journal nor format 1's
  /// `index` (a journal that was removed: every space is made with one or the other, so
  /// such a space is never taken for format 1, whose rebuilt index would lose its albums
  /// and bring back its deleted photos); 1 for a space with an `index` and no journal.
  static func formatVersion(of directory: String) -> Int {
    fileExists(directory + "/" + journalFolder) || !fileExists(directory + "/" + indexFile) ? 2 : 1
  }

  /// Throws `.io` when the space's `Photo`, `Thumb` or `Journal` is there but is not a
  /// folder of its own (a link, say): reading through a link would show the photos of
  /// another folder, and tidying would remove files in it.
  /// The space's own folder is checked too (the vault's folder may be a link, to a disk
  /// of its own, say; a space folder in it never is).
  static func requireRealFolders(in directory: String) throws {
    for name in ["", photoFolder, thumbFolder, journalFolder, offloadedFolder] {
      let path = name.isEmpty ? directory : directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw VaultError.io(
          path: path,
          reason:
            "not a folder (a space's folder and its Photo, Thumb, Journal and Offloaded are folders, never links)"
        )
      }
    }
  }

  /// Whether the space is in format 2 but its `Journal/` is gone: a repair can list its
  /// intact originals again, but not its albums, selection or deletions.
  var journalIsMissing: Bool {
    formatVersion == 2 && !fileExists(journalDirectory)
  }

  /// Gets the space ready for a writer, right after it is opened to write: a writer first
  /// cleans up after any writer that was killed (temporary files, orphan blobs), so that a
  /// killed command followed by any write leaves a space that verifies; it upgrades format
  /// 1, and removes blobs of deleted photos that a sync engine brought back.
  func prepareForWriting() throws {
    precondition(access == .write)
    try settlePasswordChange()
    try adoptFilesLeftByRenames()
    // Format 1 is tidied by its own rules before it is upgraded; format 2 only when a
    // writer was killed (a full tidy lists every blob, too slow for every command).
    let writerWasKilled = needsTidying
    // Marked before anything else is written or removed (the tidy and the upgrade included),
    // so that a kill from here on is tidied after: a tidy killed after it removed a killed
    // writer's mark, but before that writer's temporary files, left them for good.
    try markWriting()
    if formatVersion == 1 || writerWasKilled {
      try SpaceVerifier(space: self).tidyAfterKilledWriters()
    }
    if formatVersion == 1, indexDamage == nil { try upgradeToJournal() }
    if writerWasKilled { try settleTornJournal() }
    removeBlobsBroughtBack()
    // Best effort: a failure leaves the expired photos in the trash for the next writer,
    // and must not stop the command the user asked for.
    if formatVersion == 2, indexDamage == nil, expiresTrash { expiredFromTrash = (try? expireTrash()) ?? [] }
  }

  // MARK: Long-running readers

  /// Throws `.spaceMoved` when the space's path no longer names the folder it was opened
  /// on (`vault passwd` renamed it, or it was removed): a reader that stays open and fails
  /// to read a blob calls it first, so that it says the space moved, not that a photo is
  /// damaged.
  public func ensureInPlace() throws {
    try blobs.ensureInPlace()
  }

  /// `read`'s outcome; when it fails and the space is no longer where it was opened,
  /// `.spaceMoved` instead of its own error.
  func readingInPlace<T>(_ read: () throws -> T) throws -> T {
    try blobs.readingInPlace(read)
  }

  /// Lets go of the shared lock of a space opened to read, so that writers in other
  /// processes are not held up by a reader that stays open (`vault view`). `entries` stays
  /// what was read; blobs are still readable (a photo deleted meanwhile fails to load, with
  /// its own error). `reload` and `change` take the lock again for as long as they need it.
  public func releaseLock() {
    precondition(access == .read, "a writer keeps its lock until it is closed")
    lock = nil
  }

  /// Reads the index or journal again, under a shared lock held only while reading (unless
  /// the space still holds its own). `waitingAtMost`: how long to wait for a writer that
  /// holds the space (by default as long as it takes), else `.spaceBusy`.
  public func reload(waitingAtMost waitLimit: Double? = nil) throws {
    precondition(access == .read)
    let held = lock
    let reading =
      try held
      ?? DirectoryLock(path: directory, mode: .shared, waitingAtMost: waitLimit, expecting: folder)
    defer { withExtendedLifetime(reading) {} }
    try load()
  }

  /// Changes a space opened to read: lets go of its lock, opens the space to write with the
  /// same key (no key derivation) as any writer does, runs `body` with that writer, closes
  /// it, and reloads. The space's lock is released from then on (see `releaseLock`).
  /// A change that must not hold the user up (details found while showing photos) passes
  /// `waitingAtMost: 0`: when another command holds the space, it fails at once with
  /// `.spaceBusy`.
  public func change<Result>(waitingAtMost waitLimit: Double? = nil, _ body: (Space) throws -> Result) throws
    -> Result
  {
    precondition(access == .read)
    // flock locks of one process conflict too: the shared one must go before the
    // exclusive one can be taken.
    lock = nil
    var writer: Space?
    let outcome = Swift.Result<Result, Error> {
      let opened = try Space(
        directory: directory, master: master, wrappingKey: wrappingKey, access: .write,
        lock: DirectoryLock(path: directory, mode: .exclusive, waitingAtMost: waitLimit, expecting: folder))
      writer = opened
      opened.expiresTrash = expiresTrash
      try opened.prepareForWriting()
      expiredFromTrash += opened.expiredFromTrash
      trashExpiryHold = opened.trashExpiryHold ?? trashExpiryHold
      return try body(opened)
    }
    if let writer {
      // The writer read the space under its exclusive lock and keeps its catalog up to
      // date with what it wrote (a failed change's durable part too): taken over, rather
      // than read and decrypted a second time.
      formatVersion = writer.formatVersion
      journal = writer.journal
      catalog = writer.catalog
      indexDamage = writer.indexDamage
    } else if case .failure(VaultError.spaceBusy) = outcome {
      // The lock was never taken, so nothing changed; reading again would wait for the
      // same holder a second time.
    } else {
      try reload()
    }
    // Closes the writer: its mark and its lock go.
    writer = nil
    return try outcome.get()
  }

  deinit {
    if let writerMark {
      unlink(directory + "/" + writerMark)
      Self.liveWriterMarks.withLock { _ = $0.remove(directory + "/" + writerMark) }
    }
  }

  /// Throws the index's damage, if any: every command but verify needs a sound index.
  public func requireIndex() throws {
    if let indexDamage { throw indexDamage }
  }

  /// The journal of a sound format-2 space opened to write. A writer upgrades format 1
  /// when it opens the space, so only a damaged index (thrown) stands in its way.
  func requireJournal() throws -> SpaceJournal {
    precondition(access == .write, "the space was opened read-only")
    try requireIndex()
    guard let journal else { preconditionFailure("format 1 spaces are upgraded when opened for writing") }
    return journal
  }

  /// The space's folder name (its tag: 32 lowercase hex digits).
  public var tag: String { String(directory.split(separator: "/").last ?? "") }

  package var photoDirectory: String { blobs.photoDirectory }
  package var thumbDirectory: String { blobs.thumbDirectory }
  var indexPath: String { directory + "/" + Self.indexFile }
  public var journalDirectory: String { directory + "/" + Self.journalFolder }

  // Paths are built only from a `BlobID`, never from a string read from a file.
  func photoPath(_ id: BlobID) -> String { blobs.photoPath(id) }
  func thumbPath(_ id: BlobID) -> String { blobs.thumbPath(id) }

  /// The photos as models, in import order (for tests).
  func models() -> [PhotoModel] {
    entries.indices.map { catalog.item(at: $0) }
  }

  /// Publishes the catalog of `entries`, the space's photos after a change, with what is
  /// derived from them and from the journal (its Live Photos, albums, imports), taking over
  /// `importsFound` among their first photos if the journal found them as it was read.
  func publish(_ entries: PhotoEntries, importsFound: DuplicateImports? = nil) {
    catalog = SpaceCatalog(
      entries: entries, state: journal?.state, importsFound: importsFound, folders: catalog.folders)
    blobs.offloadRemote = journal?.state.offloadRemote
  }

  /// Publishes the catalog of the space's photos with `photos` appended by `changes`, which
  /// only append (an import's write): the shown names are handed on rather than resolved
  /// again, and the list is handed on too, let go of here first so that appending to it
  /// copies none of the photos before (`SpaceCatalog.appending`).
  func publish(appending photos: [IndexEntry], by changes: [JournalEntry]) {
    let previous = catalog
    catalog = previous.withSelection(of: [])
    catalog = SpaceCatalog.appending(photos, to: consume previous, by: changes, state: journal?.state)
    blobs.offloadRemote = journal?.state.offloadRemote
  }

  /// Publishes `entries`, the same photos with another selection: nothing is derived again.
  func publishSelection(_ entries: PhotoEntries) {
    catalog = catalog.withSelection(of: entries)
  }
}
