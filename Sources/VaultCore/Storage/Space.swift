import Foundation
import Synchronization

/// An unlocked space: its master key, its index, and the folder of its blobs. All reads and
/// writes of photos go through here.
public final class Space {
  /// Whether the space is opened to read (shared lock) or to change (exclusive lock).
  public enum Access { case read, write }

  static let keyFile = "key"
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
  /// The index is read whole; this bounds what a damaged or forged one can make us allocate.
  static let indexSizeLimit = 512 << 20

  public let directory: String
  let master: MasterKey
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
  /// 1 for a space with a single `index`, 2 for one with a `Journal/`.
  public private(set) var formatVersion: Int
  /// Format 2's index; nil in format 1 and while the journal is damaged.
  private(set) var journal: SpaceJournal?
  /// The photos in import order, with their selection (empty when the index is damaged).
  public private(set) var entries: PhotoEntries {
    didSet { revision &+= 1 }
  }
  /// Changes with every change to what the space holds (its photos, their selection, its
  /// albums), so that what is derived from them (a scoped list, each photo's albums) is
  /// derived again when, and only when, it would differ.
  public private(set) var revision = 0
  /// The albums and each photo's album names, as of `revision`.
  var albumCache: (revision: Int, albums: [Album], namesByPhoto: [BlobID: [String]])?
  /// Why the index could not be read, if it could not: the space still opens, so that
  /// `verify --repair` can rebuild the index from the originals.
  public private(set) var indexDamage: VaultError?
  /// This writer's mark (see `writerMarkPrefix`), removed when the space is closed.
  private var writerMark: String?
  var writerMarkName: String? { writerMark }

  convenience init(directory: String, wrappingKey: SecureBytes, access: Access) throws {
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
    self.wrappingKey = wrappingKey
    formatVersion = 1
    entries = []
    try load()
  }

  /// Reads the index (format 1) or the journal (format 2) into `entries`.
  private func load() throws {
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
        entries = journal.state.entries()
      } else {
        entries = PhotoEntries(try Self.readIndex(in: directory, master: master).photos)
      }
    } catch let error as VaultError {
      guard case .damagedIndex = error else { throw error }
      entries = []
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
    for name in ["", photoFolder, thumbFolder, journalFolder] {
      let path = name.isEmpty ? directory : directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw VaultError.io(
          path: path,
          reason: "not a folder (a space's folder and its Photo, Thumb and Journal are folders, never links)")
      }
    }
  }

  /// Whether the space is in format 2 but its `Journal/` is gone: a repair can list its
  /// intact originals again, but not its albums, selection or deletions.
  public var journalIsMissing: Bool {
    formatVersion == 2 && !fileExists(journalDirectory)
  }

  /// Gets the space ready for a writer, right after it is opened to write: a writer first
  /// cleans up after any writer that was killed (temporary files, orphan blobs), so that a
  /// killed command followed by any write leaves a space that verifies; it upgrades format
  /// 1, and removes blobs of deleted photos that a sync engine brought back.
  func prepareForWriting() throws {
    precondition(access == .write)
    try settlePasswordChange()
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
  }

  // MARK: Long-running readers

  /// Throws `.spaceMoved` when the space's path no longer names the folder it was opened
  /// on (`vault passwd` renamed it, or it was removed): a reader that stays open and fails
  /// to read a blob calls it first, so that it says the space moved, not that a photo is
  /// damaged.
  public func ensureInPlace() throws {
    guard FolderIdentity(path: directory) == folder else { throw VaultError.spaceMoved }
  }

  /// `read`'s outcome; when it fails and the space is no longer where it was opened,
  /// `.spaceMoved` instead of its own error.
  func readingInPlace<T>(_ read: () throws -> T) throws -> T {
    do {
      return try read()
    } catch {
      try ensureInPlace()
      throw error
    }
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
      try opened.prepareForWriting()
      return try body(opened)
    }
    if let writer {
      // The writer read the space under its exclusive lock and keeps its entries up to
      // date with what it wrote (a failed change's durable part too): taken over, rather
      // than read and decrypted a second time.
      formatVersion = writer.formatVersion
      journal = writer.journal
      entries = writer.entries
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

  /// The marks of writers not yet closed, for `removeWriterMarks`.
  private static let liveWriterMarks = Mutex<Set<String>>([])

  /// Removes the marks of every space still open for writing: a command calls it once it
  /// is over (its writes done or undone), whoever still holds the space.
  public static func removeWriterMarks() {
    liveWriterMarks.withLock { marks in
      for path in marks { unlink(path) }
      marks.removeAll()
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

  var photoDirectory: String { directory + "/" + Self.photoFolder }
  var thumbDirectory: String { directory + "/" + Self.thumbFolder }
  var indexPath: String { directory + "/" + Self.indexFile }
  var journalDirectory: String { directory + "/" + Self.journalFolder }

  // Paths are built only from a `BlobID`, never from a string read from a file.
  func photoPath(_ id: BlobID) -> String { photoDirectory + "/" + id.hex }
  func thumbPath(_ id: BlobID) -> String { thumbDirectory + "/" + id.hex }

  /// The photos as models for a `PhotoBrowser`.
  public func models() -> [PhotoModel] {
    entries.indices.map(model(at:))
  }

  /// The photo at `position` (0-based) as a model.
  public func model(at position: Int) -> PhotoModel {
    let record = entries[position].record
    return PhotoModel(
      isSelected: entries[position].selected, record: record, albums: albumNames(of: record.id))
  }

  // MARK: Index

  static func readIndex(in directory: String, master: MasterKey) throws -> SpaceIndex {
    let path = directory + "/" + indexFile
    let key = master.blobKey(kind: .index, id: .index)
    var bytes: [UInt8]
    do {
      let reader = try BlobReader(path: path, kind: .index, key: key, what: "the index")
      bytes = try reader.readToEnd(limit: indexSizeLimit)
    } catch VaultError.damagedBlob(_, let reason) {
      throw VaultError.damagedIndex(path: path, reason: reason)
    }
    defer { bytes.wipe() }
    do {
      // Decoded in place, without a copy that would outlive the wipe.
      let index = try bytes.withUnsafeMutableBytes { buffer in
        try JSONDecoder().decode(
          SpaceIndex.self,
          from: Data(bytesNoCopy: buffer.baseAddress!, count: buffer.count, deallocator: .none))
      }
      guard index.version == SpaceIndex.currentVersion else {
        throw VaultError.damagedIndex(path: path, reason: "unsupported index version \(index.version)")
      }
      for (position, entry) in index.photos.enumerated() {
        if let problem = entry.record.outOfRange {
          throw VaultError.damagedIndex(path: path, reason: "entry \(position + 1): \(problem)")
        }
      }
      return index
    } catch let error as VaultError {
      throw error
    } catch DecodingError.dataCorrupted(let context)
      where context.debugDescription == BlobID.malformedDescription
    {
      throw VaultError.damagedIndex(path: path, reason: Self.describeMalformedID(at: context.codingPath))
    } catch {
      throw VaultError.damagedIndex(path: path, reason: "its contents do not parse")
    }
  }

  /// "entry 2 has a malformed photo id", from where in the index the decoder met it.
  private static func describeMalformedID(at codingPath: [CodingKey]) -> String {
    guard let position = codingPath.lazy.compactMap(\.intValue).first else {
      return BlobID.malformedDescription
    }
    return "entry \(position + 1) has a \(BlobID.malformedDescription)"
  }

  static func writeIndex(_ index: SpaceIndex, in directory: String, master: MasterKey) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var plaintext = try encoder.encode(index)
    defer { plaintext.wipe() }
    let file = try TemporaryFile(in: directory)
    let writer = try BlobWriter(kind: .index, key: master.blobKey(kind: .index, id: .index), output: file)
    try plaintext.withUnsafeBytes { try writer.write($0) }
    try writer.finish()
    try file.replace(directory + "/" + indexFile)
  }

  /// Replaces the list of photos with `newEntries`, durably, then adopts them. In format 2
  /// only the differences are appended to the journal (deletions, additions, selection
  /// changes); rebuilding (which only `verify --repair` does, for a damaged index) writes
  /// a new snapshot of `newEntries` in place of the whole journal. Refused while the index
  /// is damaged, unless `rebuilding`.
  func saveEntries(_ newEntries: [IndexEntry], rebuilding: Bool = false) throws {
    precondition(access == .write, "the space was opened read-only")
    if !rebuilding { try requireIndex() }
    if formatVersion == 1 {
      try Self.writeIndex(SpaceIndex(photos: newEntries), in: directory, master: master)
      entries = PhotoEntries(newEntries)
      indexDamage = nil
      return
    }
    if rebuilding {
      try rebuildJournal(from: newEntries)
      return
    }
    let journal = try requireJournal()
    let now = Timestamp.now().nanosecondsSince1970
    let stamp = journal.state.nextStamp(now: now)
    let newIDs = Set(newEntries.map(\.record.id))
    var changes: [JournalEntry] = []
    var old: [BlobID: Bool] = [:]
    for entry in entries {
      old[entry.record.id] = entry.selected
      if !newIDs.contains(entry.record.id) { changes.append(.deleted(entry.record.id)) }
    }
    var order = journal.state.nextOrder(now: now)
    for entry in newEntries {
      if let selected = old[entry.record.id] {
        if selected != entry.selected {
          changes.append(.selection(entry.record.id, selected: entry.selected, stamp: stamp))
        }
      } else {
        changes.append(.added(entry.record, order: order))
        order += 1
        if entry.selected { changes.append(.selection(entry.record.id, selected: true, stamp: stamp)) }
        // An original adopted with the details its import read (one imported before vault
        // read them has none, and is left to be read).
        let details = PhotoDetails(of: entry.record)
        if !details.isEmpty { changes.append(.details(entry.record.id, details, stamp: stamp)) }
      }
    }
    try record(changes)
  }

  /// Lists newly imported photos after the others, each with the details read from its
  /// file at import (empty ones too: the file was read, and said nothing).
  func appendImported(_ records: [PhotoRecord]) throws {
    let journal = try requireJournal()
    let now = Timestamp.now().nanosecondsSince1970
    var order = journal.state.nextOrder(now: now)
    let stamp = journal.state.nextStamp(now: now)
    var changes: [JournalEntry] = []
    for record in records {
      changes.append(.added(record, order: order))
      changes.append(.details(record.id, PhotoDetails(of: record), stamp: stamp))
      order += 1
    }
    try self.record(changes)
  }

  /// Lists photos whose blobs are in place (`PreparedPhoto.moveIntoPlace`): makes their
  /// names durable, then appends them to the journal. Not listed, so not imported: if that
  /// fails, their blobs are taken back out.
  func commitImported(_ records: [PhotoRecord]) throws {
    do {
      try syncDirectory(photoDirectory)
      try syncDirectory(thumbDirectory)
      try appendImported(records)
    } catch {
      for record in records {
        unlink(photoPath(record.id))
        unlink(thumbPath(record.id))
      }
      throw error
    }
  }

  /// Appends `changes` to the journal and brings `entries` up to date; then compacts the
  /// journal if it is due.
  func record(_ changes: [JournalEntry]) throws {
    let journal = try requireJournal()
    guard !changes.isEmpty else { return }
    let lastOrder = journal.state.lastOrder
    try journal.append(changes)
    // Imports, the common case, only add photos (and their details) after the last one:
    // no need to sort again.
    let appendsOnly = changes.allSatisfy {
      switch $0 {
      case .added(let record, let order):
        return order > lastOrder && !journal.state.deleted.contains(record.id)
      case .details: return true
      default: return false
      }
    }
    if appendsOnly {
      for case .added(let record, _) in changes {
        entries.append(IndexEntry(record: journal.state.photo(record.id)?.record ?? record, selected: false))
      }
    } else if changes.contains(where: \.changesPhotoList) {
      entries = journal.state.entries()
    }
    revision &+= 1
    compactJournalIfDue()
  }

  /// Folds the journal into one snapshot, then removes the blobs of deleted photos that a
  /// sync engine may have brought back. Torn segments are kept unless
  /// `settlingTornSegments` (see `SpaceJournal.compact`).
  func compactJournal(settlingTornSegments: Bool = false) throws {
    guard let journal else { return }
    try journal.compact(settlingTornSegments: settlingTornSegments)
    removeBlobsOfDeletedPhotos()
  }

  /// Compacts when it is due, after a change is already durable in the journal: a failure
  /// then (a full disk, say) must not fail the change, which is done and will be reported;
  /// the next writer compacts.
  private func compactJournalIfDue() {
    guard let journal, journal.isCompactionDue else { return }
    try? compactJournal()
  }

  /// Whether the journal says this photo was deleted (its blobs are leftovers).
  func wasDeleted(_ id: BlobID) -> Bool {
    journal?.state.deleted.contains(id) ?? false
  }

  func removeBlobsOfDeletedPhotos() {
    guard let journal else { return }
    removeBlobs(of: journal.state.deleted)
  }

  /// Removes the blobs of deleted photos that a sync engine may have brought back (see
  /// `SpaceJournal.deletionsToSettle`), so that a writer leaves a merged copy that verifies.
  func removeBlobsBroughtBack() {
    guard let journal else { return }
    removeBlobs(of: journal.deletionsToSettle)
  }

  /// Not flushed: a removal that a power cut undoes is made again by a later writer or by
  /// `verify --repair`, and the journal lists none of these photos meanwhile.
  private func removeBlobs(of ids: Set<BlobID>) {
    for id in ids {
      unlink(thumbPath(id))
      unlink(photoPath(id))
    }
  }

  /// Rebuilds a damaged journal: what still reads of it (its photos, deletions and
  /// selections), and `newEntries` (the intact originals) added where missing. A photo the
  /// journal deleted stays deleted.
  private func rebuildJournal(from newEntries: [IndexEntry]) throws {
    if !fileExists(journalDirectory) {
      guard mkdir(journalDirectory, 0o700) == 0 else { throw VaultError.posix(journalDirectory) }
      try syncDirectory(directory)
    }
    var state = SpaceJournal.salvage(directory: journalDirectory, master: master)
    let now = Timestamp.now().nanosecondsSince1970
    // The selection is cleared: the damaged part may have changed it, and an old selection
    // brought back could make `delete --selected` delete photos the user had unselected.
    for entry in state.entries() where entry.selected {
      state.apply(.selection(entry.record.id, selected: false, stamp: state.nextStamp(now: now)))
    }
    state.add(newEntries.filter { state.photo($0.record.id) == nil }, selectedAt: state.nextStamp(now: now))
    let name = try SpaceJournal.writeSnapshot(of: state, in: journalDirectory, master: master)
    for old in try listVaultFolder(journalDirectory) where old != name && !old.hasPrefix(TemporaryFile.prefix)
    {
      unlink(journalDirectory + "/" + old)
    }
    try syncDirectory(journalDirectory)
    let rebuilt = try SpaceJournal.load(directory: journalDirectory, master: master)
    journal = rebuilt
    entries = rebuilt.state.entries()
    indexDamage = nil
  }

  // MARK: Format 1 to 2

  /// Turns a format-1 space into format 2: a snapshot of its index is written into a new
  /// folder, which is renamed to `Journal/` in one step; then the old index is removed. A
  /// kill before the rename leaves format 1 (and a temporary folder the next writer
  /// removes), after it format 2; nothing is lost either way.
  func upgradeToJournal() throws {
    precondition(access == .write && formatVersion == 1)
    try requireIndex()
    let state = SpaceState(listing: entries, selectedAt: Timestamp.now().nanosecondsSince1970)
    let staging = directory + "/" + TemporaryFile.prefix + "journal-" + hexString(Sodium.randomBytes(8))
    guard mkdir(staging, 0o700) == 0 else { throw VaultError.posix(staging) }
    do {
      try SpaceJournal.writeSnapshot(of: state, in: staging, master: master)
      // Read back before it replaces the index: a record format 1 accepted but format 2
      // cannot hold must stop the upgrade here, not leave a journal that does not open.
      do {
        _ = try SpaceJournal.load(directory: staging, master: master)
      } catch VaultError.damagedIndex(_, let reason) {
        throw VaultError.damagedIndex(path: indexPath, reason: "it cannot be upgraded to format 2: \(reason)")
      }
      guard rename(staging, journalDirectory) == 0 else { throw VaultError.posix(journalDirectory) }
    } catch {
      removeTree(staging)
      throw error
    }
    try syncDirectory(directory)
    unlink(indexPath)
    try syncDirectory(directory)
    let upgraded = try SpaceJournal.load(directory: journalDirectory, master: master)
    journal = upgraded
    formatVersion = 2
    entries = upgraded.state.entries()
  }

  // MARK: Writers

  /// Whether a writer was killed here (its mark, or another temporary file, is left), or an
  /// upgrade was cut short after its journal was in place (format 1's index is left beside
  /// it): then the writer that opens the space next tidies first.
  var needsTidying: Bool {
    let names = (try? listVaultFolder(directory, followingLink: true)) ?? []
    return names.contains { $0.hasPrefix(TemporaryFile.prefix) }
      || (formatVersion == 2 && names.contains(Self.indexFile))
  }

  /// Segments that end in a torn record, by name (`Journal/j-…`).
  public var tornSegments: [String] {
    (journal?.tornSegments ?? []).map { Self.journalFolder + "/" + $0 }
  }

  /// Leaves this writer's mark before anything is written. It is not flushed: a killed
  /// process leaves it anyway, and after a power cut that lost it the next writer only
  /// leaves for `vault verify` what it would have tidied (orphans, a torn segment it then
  /// keeps), losing nothing; a flush would cost every write command.
  func markWriting() throws {
    precondition(access == .write && writerMark == nil)
    let name = Self.writerMarkPrefix + hexString(Sodium.randomBytes(8))
    let descriptor = open(directory + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw VaultError.posix(directory) }
    close(descriptor)
    writerMark = name
    Self.liveWriterMarks.withLock { _ = $0.insert(directory + "/" + name) }
  }

  /// Removes this writer's mark from the space's folder, now named `folder` (a password
  /// change renamed it under the lock): the mark's recorded path is stale.
  func removeWriterMark(movedTo folder: String) {
    guard let writerMark else { return }
    unlink(folder + "/" + writerMark)
    Self.liveWriterMarks.withLock { _ = $0.remove(directory + "/" + writerMark) }
    self.writerMark = nil
  }

  /// Compacts a journal that ends in a torn record: the new snapshot holds every whole
  /// record, and the torn segments are removed. Called when a killed writer's mark says that
  /// the tear is a write cut short here, and by `verify --repair`.
  func settleTornJournal() throws {
    guard let journal, !journal.tornSegments.isEmpty, indexDamage == nil else { return }
    try compactJournal(settlingTornSegments: true)
  }

  // MARK: Selection

  /// Sets the selection of the photos at `positions` (0-based) to `selected`.
  /// Only what changes is written, and only those entries are updated: selecting a few
  /// photos of a big space costs a few entries.
  public func setSelection(_ positions: [Int], to selected: Bool) throws {
    try setSelections(positions.map { ($0, selected) })
  }

  /// Sets the selection of each photo in `changes` (0-based positions; for a position
  /// given twice, the last), all in one write, so that a change such as inverting the
  /// selection is never left half done.
  public func setSelections(_ changes: [(position: Int, selected: Bool)]) throws {
    var wanted: [Int: Bool] = [:]
    for change in changes { wanted[change.position] = change.selected }
    let changing = wanted.filter { entries[$0.key].selected != $0.value }.sorted { $0.key < $1.key }
    try appendSelections(changing.map { ($0.key, $0.value) })
  }

  private func appendSelections(_ changes: [(position: Int, selected: Bool)]) throws {
    let journal = try requireJournal()
    guard !changes.isEmpty else { return }
    let stamp = journal.state.nextStamp(now: Timestamp.now().nanosecondsSince1970)
    try journal.append(
      changes.map { .selection(entries[$0.position].record.id, selected: $0.selected, stamp: stamp) })
    for change in changes {
      entries[change.position].selected = journal.state.isSelected(entries[change.position].record.id)
    }
    compactJournalIfDue()
  }

  // MARK: Details

  /// Whether the photo's file has been read for its date taken and camera (at its import,
  /// or since); photos imported before vault read them have not. False while the journal
  /// is damaged, and in format 1 (a writer upgrades it first).
  public func hasDetails(_ id: BlobID) -> Bool {
    journal?.state.hasDetails(id) ?? false
  }

  /// Records details read from the files of listed photos that have none yet (others are
  /// passed over: another command may have read them, or deleted the photo, meanwhile).
  /// Returns how many were recorded.
  @discardableResult
  func recordDetails(_ found: [BlobID: PhotoDetails]) throws -> Int {
    precondition(access == .write, "the space was opened read-only")
    // A format-1 index rebuilt by a repair has no journal yet: the next writer upgrades it.
    guard let journal, indexDamage == nil else { return 0 }
    let listed = Set(entries.lazy.map(\.record.id).filter { found[$0] != nil })
    let stamp = journal.state.nextStamp(now: Timestamp.now().nanosecondsSince1970)
    let changes = found.filter { listed.contains($0.key) && !journal.state.hasDetails($0.key) }
      .sorted { $0.key < $1.key }
      .map { JournalEntry.details($0.key, $0.value, stamp: stamp) }
    guard !changes.isEmpty else { return 0 }
    try journal.append(changes)
    for position in entries.indices {
      guard found[entries[position].record.id] != nil,
        let photo = journal.state.photo(entries[position].record.id)
      else { continue }
      entries[position].record = photo.record
    }
    compactJournalIfDue()
    return changes.count
  }

  /// Records details that showing photos read from their files, for a space opened to
  /// read, if the space is free now: never waits for another command and never fails (the
  /// details are read again next time). Returns whether they were recorded.
  @discardableResult
  public func recordDetailsIfFree(_ found: [BlobID: PhotoDetails]) -> Bool {
    guard !found.isEmpty else { return true }
    return (try? change(waitingAtMost: 0) { writer in try writer.recordDetails(found) }) != nil
  }

  // MARK: Delete

  /// Removes photos, originals and thumbnails. The index is written first, so a crash
  /// leaves at worst orphan blobs, never an index entry without its photo; thumbnails go
  /// before originals, so that an orphan original without a thumbnail is known to be a
  /// delete cut short (the next writer removes it) and not an import cut short. In format 2
  /// the journal's deletion names them, so the next writer removes them whatever is left.
  public func deletePhotos(ids: Set<BlobID>) throws {
    // Only the deletions are written (not a comparison of the whole list).
    try record(entries.lazy.map(\.record.id).filter(ids.contains).map { JournalEntry.deleted($0) })
    for id in ids { unlink(thumbPath(id)) }
    try syncDirectory(thumbDirectory)
    for id in ids { unlink(photoPath(id)) }
    try syncDirectory(photoDirectory)
  }

  // MARK: Blobs

  /// Describes a photo in error messages.
  func describe(_ record: PhotoRecord) -> String {
    "photo '\(record.name)' (\(Self.photoFolder)/\(record.id))"
  }

  /// The decrypted thumbnail of a photo (a JPEG); the caller wipes it.
  public func thumbnail(of record: PhotoRecord) throws -> [UInt8] {
    try readingInPlace {
      let reader = try BlobReader(
        path: thumbPath(record.id), kind: .thumbnail, key: master.blobKey(kind: .thumbnail, id: record.id),
        what: "thumbnail of photo '\(record.name)' (\(Self.thumbFolder)/\(record.id))")
      return try ThumbnailBlob.read(from: reader)
    }
  }

  /// Encrypts a thumbnail into a temporary file in `Thumb/`, to be moved into place; flushed
  /// unless the caller flushes it later (the importer, off its decode threads).
  func sealThumbnail(_ jpeg: [UInt8], id: BlobID, flush: Bool = true) throws -> TemporaryFile {
    let file = try TemporaryFile(in: thumbDirectory)
    let writer = try BlobWriter(kind: .thumbnail, key: master.blobKey(kind: .thumbnail, id: id), output: file)
    try ThumbnailBlob.write(jpeg, to: writer)
    try writer.finish()
    if flush { try file.sync() }
    return file
  }

  /// A photo's original, decrypted whole into memory (never to disk), once every byte of it
  /// has authenticated and its content hash matches its record. The caller makes sure the
  /// record's size is one it can hold.
  public func original(of record: PhotoRecord) throws -> PlaintextBytes {
    try readingInPlace { try decryptOriginal(record) }
  }

  private func decryptOriginal(_ record: PhotoRecord) throws -> PlaintextBytes {
    let reader = try openOriginal(record)
    guard let count = Int(exactly: record.bytes), count >= 0 else {
      throw VaultError.damagedBlob(what: describe(record), reason: "its size \(record.bytes) is out of range")
    }
    let plaintext = PlaintextBytes(count: count)
    var filled = 0
    try reader.readContent { chunk in
      // A version-1 blob is read to its end before its size is checked.
      guard chunk.count <= count - filled else {
        throw VaultError.damagedBlob(
          what: describe(record), reason: "holds more than the \(record.bytes) bytes its record says")
      }
      guard let bytes = chunk.baseAddress else { return }
      UnsafeMutableRawPointer(plaintext.pinned.buffer.baseAddress! + filled).copyMemory(
        from: bytes, byteCount: chunk.count)
      filled += chunk.count
    }
    return plaintext
  }

  /// Opens a photo's original for reading: its record is checked against `record`.
  func openOriginal(_ record: PhotoRecord) throws -> OriginalBlobReader {
    let reader = try OriginalBlobReader(
      path: photoPath(record.id), id: record.id, master: master, what: describe(record))
    guard reader.record.id == record.id, reader.record.contentHash == record.contentHash,
      reader.record.bytes == record.bytes
    else {
      throw VaultError.damagedBlob(what: describe(record), reason: "its record does not match the index")
    }
    return reader
  }
}
