import Foundation

/// One thing `vault verify` found in a space.
public enum VerifyFinding: Equatable, Sendable, CustomStringConvertible {
  /// The photo's original and thumbnail authenticate and match the index.
  case intact(number: Int, name: String)
  /// An original that does not authenticate, or does not match its record or the index.
  /// `number` is nil for an original the index does not list.
  case damagedOriginal(number: Int?, name: String?, id: String, reason: String)
  /// The index lists a photo whose original file is gone.
  case missingOriginal(number: Int, name: String, id: String)
  case damagedThumbnail(number: Int, name: String, id: String, reason: String)
  case missingThumbnail(number: Int, name: String, id: String)
  /// The index lists the same photo twice.
  case listedTwice(number: Int, name: String, id: String)
  /// An intact original the index does not list (an import cut short, a lost index).
  case orphanOriginal(id: String, name: String)
  /// A thumbnail whose original is gone.
  case orphanThumbnail(id: String)
  /// A file left by an interrupted write.
  case temporaryFile(path: String)
  /// A journal segment that ends in an incomplete record: a write cut short, a copy a sync
  /// engine has not finished, bit rot, or someone's change. Its whole records count.
  case tornJournalSegment(path: String)
  /// A blob of a photo the journal says was deleted: a delete cut short, or a file a sync
  /// engine brought back from another copy.
  case deletedPhotoLeftover(path: String)
  /// A file vault did not write.
  case unexpectedFile(path: String)
  case damagedIndex(reason: String)

  /// Whether `verify --repair` can fix it: it never deletes a damaged original (only a
  /// backup or the user can settle that) and leaves files it did not write alone.
  public var isRepairable: Bool {
    switch self {
    case .intact, .damagedOriginal, .unexpectedFile: return false
    default: return true
    }
  }

  public var isProblem: Bool {
    switch self {
    // Encrypted files of a deleted photo, which a sync brought back: harmless, and the next
    // write removes them.
    case .intact, .deletedPhotoLeftover: return false
    default: return true
    }
  }

  public var description: String {
    switch self {
    case .intact(let number, let name):
      return "ok: \(number) \(name)"
    case .damagedOriginal(let number?, let name, let id, let reason):
      return "damaged original: \(number) \(name ?? "?") (Photo/\(id)): \(reason)"
    case .damagedOriginal(nil, _, let id, let reason):
      return "damaged original not in the index: Photo/\(id): \(reason)"
    case .missingOriginal(let number, let name, let id):
      return "missing original: \(number) \(name) (Photo/\(id) is gone)"
    case .damagedThumbnail(let number, let name, let id, let reason):
      return "damaged thumbnail: \(number) \(name) (Thumb/\(id)): \(reason)"
    case .missingThumbnail(let number, let name, let id):
      return "missing thumbnail: \(number) \(name) (Thumb/\(id))"
    case .listedTwice(let number, let name, let id):
      return "listed twice: \(number) \(name) (Photo/\(id))"
    case .orphanOriginal(let id, let name):
      return "orphan original: Photo/\(id) ('\(name)', intact, not in the index)"
    case .orphanThumbnail(let id):
      return "orphan thumbnail: Thumb/\(id) (its original is gone)"
    case .temporaryFile(let path):
      return "leftover temporary file: \(path)"
    case .deletedPhotoLeftover(let path):
      return "leftover of a deleted photo: \(path)"
    case .tornJournalSegment(let path):
      return "journal segment ends in an incomplete record: \(path) (a write cut short, or a copy "
        + "still being synced; its whole records count)"
    case .unexpectedFile(let path):
      return "unexpected file: \(path) (not written by vault; left alone)"
    case .damagedIndex(let reason):
      return "damaged index: \(reason)"
    }
  }
}

/// How much of each blob `vault verify` reads.
public enum VerifyDepth: Sendable {
  /// Every byte of every blob: any damage is found.
  case full
  /// The index, and of each photo only its blobs' headers and first chunk (for an original,
  /// the record in it, checked against the index): finds missing, swapped or replaced blobs
  /// and damage at their start without reading whole originals, but not damage further in.
  case quick
}

/// What `vault verify --repair` did.
public struct RepairSummary: Equatable, Sendable {
  public var indexRebuilt = false
  /// How many photos the rebuilt index lists.
  public var rebuiltCount = 0
  public var selectionLost = false
  /// The journal was gone, not damaged: the rebuilt space lists the intact originals, but
  /// its albums, its selection and its deletions could not be recovered (a deleted photo
  /// whose original was left comes back). It is not the space as it was.
  public var journalLost = false
  public var adopted: [String] = []
  public var droppedMissing: [String] = []
  /// Photos whose original is missing, left listed (format 2): only a deletion removes them.
  public var keptMissing: [PhotoRecord] = []
  public var duplicatesDropped = 0
  public var thumbnailsRemade: [String] = []
  public var thumbnailsNotRemade: [String] = []
  public var removedFiles: [String] = []
  /// Damaged originals, left where they are for the user.
  public var damagedOriginals: [String] = []
  /// Photos imported before vault read the date taken and camera from their files, whose
  /// files were read for them now; `datesFound` of them gave a date.
  public var detailsRead = 0
  public var datesFound = 0
  /// Set when an interruption stopped the repair early.
  public var interruption: RepairInterruption?
}

/// Where an interruption stopped `vault verify --repair`.
public enum RepairInterruption: Equatable, Sendable {
  /// While checking the photos: nothing was changed.
  case checking(done: Int, total: Int)
  /// While remaking thumbnails: the rest of the repair was done.
  case remakingThumbnails(done: Int, total: Int)
}

/// Checks every blob of an unlocked space against the index, on all cores, and repairs
/// what can be repaired without guessing. It never deletes an original that is damaged.
public final class SpaceVerifier {
  private let space: Space
  private let vaultPath: String
  private let thumbnailer: Thumbnailer
  private let parallelism: Int
  /// Memory shared by the originals held whole at once while their details are read.
  private let detailsMemory = MemoryBudget(total: PhotoImporter.memoryBudget)

  public init(space: Space, thumbnailer: Thumbnailer = Thumbnailer(), parallelism: Int? = nil) {
    self.space = space
    vaultPath = parentFolder(space.directory)
    self.thumbnailer = thumbnailer
    self.parallelism = max(1, parallelism ?? ProcessInfo.processInfo.activeProcessorCount)
  }

  /// The files of a folder, split into blob ids, temporary files and anything else.
  private struct FolderContents {
    var ids: [BlobID] = []
    var temporary: [String] = []
    var unexpected: [String] = []
  }

  private func contents(of folder: String, relativeTo prefix: String) -> FolderContents {
    var result = FolderContents()
    let names = (try? listVaultFolder(folder, followingLink: folder == space.directory)) ?? []
    for name in names.sorted() {
      if name.hasPrefix(TemporaryFile.prefix) {
        result.temporary.append(prefix + name)
      } else if let id = BlobID(hex: name) {
        result.ids.append(id)
      } else {
        result.unexpected.append(prefix + name)
      }
    }
    return result
  }

  /// The state of one original: its record if it reads through to its last byte intact,
  /// and the details read from it when they were asked for.
  private enum OriginalState {
    case intact(PhotoRecord, details: PhotoDetails?)
    case damaged(String)
    case missing
  }

  /// At `.quick` depth an original whose header and record read is taken as intact. With
  /// `readingDetails` (at `.full` depth), the date taken and camera are read from the
  /// original as it is decrypted: the record's own when its import read them, else from
  /// the file, held whole in memory up to `PhotoImporter.inMemoryFileLimit` (larger JPEGs
  /// and PNGs from their first bytes, as on import; a larger HEIC is left to be read when
  /// it is shown).
  private func checkOriginal(
    id: BlobID, expected: PhotoRecord?, depth: VerifyDepth = .full, readingDetails: Bool = false
  ) -> OriginalState {
    guard fileExists(space.photoPath(id)) else { return .missing }
    do {
      let reader = try OriginalBlobReader(
        path: space.photoPath(id), id: id, master: space.master, what: "Photo/\(id)")
      if let expected,
        reader.record.contentHash != expected.contentHash || reader.record.bytes != expected.bytes
      {
        return .damaged("its record does not match the index")
      }
      guard depth == .full else { return .intact(reader.record, details: nil) }
      let recorded = PhotoDetails(of: reader.record)
      guard readingDetails, recorded.isEmpty, reader.record.bytes > 0 else {
        try reader.readContent { _ in }
        return .intact(reader.record, details: readingDetails ? recorded : nil)
      }
      let whole = reader.record.bytes <= PhotoImporter.inMemoryFileLimit
      if !whole && reader.record.format == .heic {
        try reader.readContent { _ in }
        return .intact(reader.record, details: nil)
      }
      let length = whole ? Int(reader.record.bytes) : PhotoDetailsReader.prefixLength
      let reserved = detailsMemory.reserve(length)
      defer { detailsMemory.release(reserved) }
      let file = PlaintextBytes(count: length)
      var filled = 0
      try reader.readContent { chunk in
        let taken = min(chunk.count, length - filled)
        guard taken > 0, let source = chunk.baseAddress else { return }
        UnsafeMutableRawPointer(file.pinned.buffer.baseAddress! + filled).copyMemory(
          from: source, byteCount: taken)
        filled += taken
      }
      // Read once the whole original has authenticated.
      return .intact(
        reader.record, details: PhotoDetailsReader.read(file.pinned, format: reader.record.format))
    } catch let error as VaultError {
      if case .damagedBlob(_, let reason) = error { return .damaged(reason) }
      return .damaged(error.description)
    } catch {
      return .damaged("\(error)")
    }
  }

  /// At `.quick` depth only the thumbnail's header and first chunk are read.
  private func checkThumbnail(_ record: PhotoRecord, depth: VerifyDepth = .full) -> String?? {
    guard fileExists(space.thumbPath(record.id)) else { return .some(nil) }
    do {
      switch depth {
      case .full:
        var bytes = try space.thumbnail(of: record)
        bytes.wipe()
      case .quick:
        let reader = try BlobReader(
          path: space.thumbPath(record.id), kind: .thumbnail,
          key: space.master.blobKey(kind: .thumbnail, id: record.id), what: "Thumb/\(record.id)")
        _ = try reader.nextBytes()
      }
      return nil
    } catch let VaultError.damagedBlob(_, reason) {
      return .some(reason)
    } catch {
      return .some("\(error)")
    }
  }

  /// Authenticates every blob (at `.quick` depth, the index and each blob's start);
  /// `progress` is called with (done, total) as photos are checked, in the photos' order.
  public func verify(depth: VerifyDepth = .full, progress: (Int, Int) -> Void = { _, _ in })
    -> [VerifyFinding]
  {
    inspect(depth: depth, progress: progress, interruption: nil).findings
  }

  /// One photo to check: a listed photo (not checked again when it is listed a second
  /// time), or an original the index does not list.
  private enum PhotoToCheck {
    case listed(number: Int, record: PhotoRecord, listedBefore: Bool)
    case orphan(BlobID)
  }

  /// What checking one photo found.
  private struct PhotoCheck {
    var findings: [VerifyFinding] = []
    /// The record of an orphan original found intact.
    var intactOrphan: PhotoRecord?
    /// The details read from an intact original, when they were asked for.
    var details: (id: BlobID, details: PhotoDetails)?
  }

  /// What is wrong with the index itself, at either depth: it is read whole at unlock
  /// anyway. The journal's and snapshots' own checks of format 2 belong here too.
  /// The index's (format 1) or journal's (format 2) damage, if any. Every journal record and
  /// snapshot was authenticated when the space was opened, so there is nothing more to read.
  private func checkIndex() -> [VerifyFinding] {
    let torn = space.tornSegments.map { VerifyFinding.tornJournalSegment(path: $0) }
    guard let damage = space.indexDamage, case .damagedIndex(let path, let reason) = damage else {
      return torn
    }
    let prefix = space.directory + "/"
    let file = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    return [.damagedIndex(reason: file == Space.indexFile ? reason : "\(file): \(reason)")]
  }

  /// Checks one photo's original and thumbnail; runs on a worker. With `readingDetails`,
  /// the details of the listed photos it names, and of orphans, are read on the way.
  private func check(_ photo: PhotoToCheck, depth: VerifyDepth, readingDetails: Set<BlobID>?) -> PhotoCheck {
    var result = PhotoCheck()
    switch photo {
    case .listed(let number, let record, listedBefore: true):
      result.findings.append(.listedTwice(number: number, name: record.name, id: record.id.hex))
    case .listed(let number, let record, listedBefore: false):
      let id = record.id.hex
      switch checkOriginal(
        id: record.id, expected: record, depth: depth,
        readingDetails: readingDetails?.contains(record.id) == true)
      {
      case .missing:
        result.findings.append(.missingOriginal(number: number, name: record.name, id: id))
      case .damaged(let reason):
        result.findings.append(.damagedOriginal(number: number, name: record.name, id: id, reason: reason))
      case .intact(_, let details):
        if let details { result.details = (record.id, details) }
      }
      switch checkThumbnail(record, depth: depth) {
      case .some(nil):
        result.findings.append(.missingThumbnail(number: number, name: record.name, id: id))
      case .some(.some(let reason)):
        result.findings.append(.damagedThumbnail(number: number, name: record.name, id: id, reason: reason))
      case .none: break
      }
      if result.findings.isEmpty { result.findings.append(.intact(number: number, name: record.name)) }
    case .orphan(let id):
      switch checkOriginal(id: id, expected: nil, depth: depth, readingDetails: readingDetails != nil) {
      case .intact(let record, let details):
        result.findings.append(.orphanOriginal(id: id.hex, name: record.name))
        result.intactOrphan = record
        if let details { result.details = (id, details) }
      case .damaged(let reason):
        result.findings.append(.damagedOriginal(number: nil, name: nil, id: id.hex, reason: reason))
      case .missing: break
      }
    }
    return result
  }

  /// What verify reports, and the records of the intact orphan originals it read on the way
  /// (so that repair can adopt them without decrypting them again). Photos are checked on
  /// all cores, a bounded number at a time, and reported in their order. When
  /// `interruption` is requested, stops before the next photo in order and says how far it
  /// got in `stopped`.
  ///
  /// With `readingDetails`, the details of listed photos that have none, and of orphans,
  /// are read from their originals as they are checked (see `checkOriginal`).
  private func inspect(
    depth: VerifyDepth, readingDetails: Bool = false, progress: (Int, Int) -> Void,
    interruption: Interruption?
  ) -> (
    findings: [VerifyFinding], orphans: [PhotoRecord], details: [BlobID: PhotoDetails],
    stopped: (done: Int, total: Int)?
  ) {
    var findings = checkIndex()
    var intactOrphans: [PhotoRecord] = []
    var details: [BlobID: PhotoDetails] = [:]
    let photos = contents(of: space.photoDirectory, relativeTo: Space.photoFolder + "/")
    let thumbs = contents(of: space.thumbDirectory, relativeTo: Space.thumbFolder + "/")
    let top = contents(of: space.directory, relativeTo: "")
    let listedIDs = Set(space.entries.map(\.record.id))
    var seen = Set<BlobID>()
    // Checked and numbered in the browser's list (every photo, by date taken), so that a
    // number verify prints is the one `vault list` shows for the same photo.
    let browser = space.makeBrowser()
    let listed: [PhotoToCheck] = (0..<browser.count).map { index in
      let record = browser.photoAtIndex!(index).record
      return .listed(number: index + 1, record: record, listedBefore: !seen.insert(record.id).inserted)
    }
    let toCheck =
      listed + photos.ids.filter { !listedIDs.contains($0) && !space.wasDeleted($0) }.map { .orphan($0) }
    let total = toCheck.count
    let needingDetails: Set<BlobID>? =
      readingDetails ? Set(space.entries.lazy.map(\.record.id).filter { !self.space.hasDetails($0) }) : nil
    // Each check holds one open blob and one 64 KiB chunk at a time; a result is a few
    // findings. Nil is a photo a worker skipped because of the interruption.
    let pipeline = PreparationPipeline<PhotoToCheck, PhotoCheck?>(
      items: toCheck, limit: parallelism * 2, interruption: interruption,
      prepare: { [self] photo in
        if interruption?.isRequested == true { return .success(nil) }
        return .success(check(photo, depth: depth, readingDetails: needingDetails))
      }, discard: { _ in })
    defer { pipeline.finish() }
    for position in toCheck.indices {
      guard interruption?.isRequested != true,
        case .success(let checked?)? = pipeline.result(at: position, whileWaiting: {})
      else { return (findings, intactOrphans, details, (position, total)) }
      findings += checked.findings
      if let record = checked.intactOrphan { intactOrphans.append(record) }
      if let read = checked.details { details[read.id] = read.details }
      progress(position + 1, total)
    }
    let originals = Set(photos.ids)
    for id in photos.ids where space.wasDeleted(id) {
      findings.append(.deletedPhotoLeftover(path: Space.photoFolder + "/" + id.hex))
    }
    for id in thumbs.ids where space.wasDeleted(id) {
      findings.append(.deletedPhotoLeftover(path: Space.thumbFolder + "/" + id.hex))
    }
    // A listed photo's thumbnail is no orphan, even without its original (which a sync
    // engine may not have brought yet).
    for id in thumbs.ids where !originals.contains(id) && !space.wasDeleted(id) && !listedIDs.contains(id) {
      findings.append(.orphanThumbnail(id: id.hex))
    }
    let known = Set([
      Space.keyFile, Space.indexFile, Space.photoFolder, Space.thumbFolder, Space.journalFolder,
      // A password change cut short, which the next writer settles.
      Space.nextKeyFile,
      Space.recoveryFile,
    ])
    let journal = journalContents(relativeTo: Space.journalFolder + "/")
    // This command's own mark is no leftover.
    let temporary =
      top.temporary.filter { $0 != space.writerMarkName } + journal.temporary + photos.temporary
      + thumbs.temporary
      + leftoverSpaceFolders()
    findings += temporary.map { .temporaryFile(path: $0) }
    let unexpected =
      top.unexpected.filter { !known.contains($0) } + journal.unexpected + photos.unexpected
      + thumbs.unexpected
    findings += unexpected.map { .unexpectedFile(path: $0) }
    return (findings, intactOrphans, details, nil)
  }

  /// The journal folder's temporary and unexpected files (its snapshots and segments are
  /// checked when the space is opened).
  private func journalContents(relativeTo prefix: String) -> FolderContents {
    var result = FolderContents()
    guard space.formatVersion == 2 else { return result }
    for name in ((try? listVaultFolder(space.journalDirectory)) ?? []).sorted() {
      if name.hasPrefix(TemporaryFile.prefix) {
        result.temporary.append(prefix + name)
      } else if !SpaceJournal.isJournalFile(name) {
        result.unexpected.append(prefix + name)
      }
    }
    return result
  }

  /// Half-made spaces (`.tmp-space-*`) in the vault folder: no password opens them.
  private func leftoverSpaceFolders() -> [String] {
    let names = (try? listVaultFolder(vaultPath, followingLink: true)) ?? []
    return names.filter { $0.hasPrefix(TemporaryFile.prefix) }.sorted().map { "../" + $0 }
  }

  /// Fixes what can be fixed without guessing: rebuilds the index from the records inside
  /// the originals when it is damaged (the selection is then lost), adopts intact orphan
  /// originals, drops index entries whose original is gone, remakes missing or damaged
  /// thumbnails from intact originals, and removes temporary files and orphan thumbnails.
  /// Damaged originals are reported and left alone.
  ///
  /// When `interruption` is requested while the photos are checked, nothing is changed;
  /// while thumbnails are remade, the thumbnail in hand is finished and the rest of the
  /// repair is done. Either way the summary says where it stopped.
  public func repair(progress: (Int, Int) -> Void = { _, _ in }, interruption: Interruption? = nil) throws
    -> RepairSummary
  {
    var summary = RepairSummary()
    let (findings, orphans, details, stopped) = inspect(
      depth: .full, readingDetails: true, progress: progress, interruption: interruption)
    if let stopped {
      summary.interruption = .checking(done: stopped.done, total: stopped.total)
      return summary
    }
    let rebuilding = space.indexDamage != nil
    var entries: [IndexEntry] = []
    var seen = Set<BlobID>()
    if !rebuilding {
      for entry in space.entries {
        guard seen.insert(entry.record.id).inserted else {
          summary.duplicatesDropped += 1
          continue
        }
        if fileExists(space.photoPath(entry.record.id)) {
          entries.append(entry)
        } else if space.formatVersion == 2 {
          // A deletion in the journal is for good, on every synced copy: an original that a
          // sync engine has not brought yet must not be deleted everywhere for it.
          entries.append(entry)
          summary.keptMissing.append(entry.record)
        } else {
          summary.droppedMissing.append(entry.record.name)
        }
      }
    }
    for case .damagedOriginal(_, let name, let id, _) in findings {
      summary.damagedOriginals.append(name.map { "\($0) (Photo/\(id))" } ?? "Photo/\(id)")
    }
    // Orphans (all originals, when the index is rebuilt) join in import order.
    let (adopted, redundant) = placeOrphans(orphans, listed: &entries, seen: &seen)
    if !rebuilding { summary.adopted = adopted.map(\.name) }
    summary.indexRebuilt = rebuilding
    summary.rebuiltCount = rebuilding ? entries.count : 0
    summary.selectionLost = rebuilding
    summary.journalLost = rebuilding && space.journalIsMissing

    // Thumbnails: remade from the original wherever missing or damaged.
    let needingThumbnails = entries.map(\.record).filter { checkThumbnail($0) != nil }
    for (done, record) in needingThumbnails.enumerated() {
      if interruption?.isRequested == true {
        summary.interruption = .remakingThumbnails(done: done, total: needingThumbnails.count)
        break
      }
      do {
        try remakeThumbnail(record)
        summary.thumbnailsRemade.append(record.name)
      } catch {
        summary.thumbnailsNotRemade.append("\(record.name): \(error)")
      }
    }
    if rebuilding || !entries.elementsEqual(space.entries) {
      try space.saveEntries(entries, rebuilding: rebuilding)
    }
    // Photos imported before vault read their details get them from the originals just read.
    let unread = details.filter { !space.hasDetails($0.key) }
    summary.detailsRead = try space.recordDetails(unread)
    summary.datesFound = space.entries.lazy.filter { unread[$0.record.id]?.taken != nil }.count
    // Last, what no index entry needs any more.
    for id in redundant {
      unlink(space.photoPath(id))
      unlink(space.thumbPath(id))
      summary.removedFiles.append(
        Space.photoFolder + "/" + id.hex + " (a second copy of a photo in the space)")
    }
    if !redundant.isEmpty { try syncDirectory(space.photoDirectory) }
    for finding in findings {
      switch finding {
      case .temporaryFile(let path):
        removeTree(space.directory + "/" + path)
        summary.removedFiles.append(path)
      case .tornJournalSegment(let path):
        // Its whole records go into the snapshot this writes; the torn bytes go with it.
        try space.settleTornJournal()
        summary.removedFiles.append(path + " (its whole records kept)")
      case .deletedPhotoLeftover(let path):
        // Parsed again, so that no path is built from a string.
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 2, let id = BlobID(hex: parts[1]) else { continue }
        unlink(parts[0] == Space.photoFolder ? space.photoPath(id) : space.thumbPath(id))
        summary.removedFiles.append(path)
      case .orphanThumbnail(let hex):
        // The finding's id came from a folder listing, checked there; parsed again here so
        // that no path is ever built from a string.
        guard let id = BlobID(hex: hex) else { continue }
        unlink(space.thumbPath(id))
        summary.removedFiles.append(Space.thumbFolder + "/" + hex)
      default: break
      }
    }
    try syncDirectory(space.directory)
    try syncDirectory(space.thumbDirectory)
    try syncDirectory(space.photoDirectory)
    return summary
  }

  /// Appends the intact orphans not yet listed to `listed`, in import order, as unselected
  /// entries; returns them, and the ids of orphans that are second copies of a listed
  /// photo (an import cut short, then run again): those add nothing, and removing them
  /// loses nothing.
  private func placeOrphans(_ orphans: [PhotoRecord], listed: inout [IndexEntry], seen: inout Set<BlobID>)
    -> (adopted: [PhotoRecord], redundant: [BlobID])
  {
    let ordered = orphans.sorted {
      ($0.importedAt.seconds, $0.importedAt.nanoseconds) < ($1.importedAt.seconds, $1.importedAt.nanoseconds)
    }
    var knownHashes = Set(listed.map(\.record.contentHash))
    var adopted: [PhotoRecord] = []
    var redundant: [BlobID] = []
    for record in ordered where seen.insert(record.id).inserted {
      guard knownHashes.insert(record.contentHash).inserted else {
        redundant.append(record.id)
        continue
      }
      listed.append(IndexEntry(record: record, selected: false))
      adopted.append(record)
    }
    return (adopted, redundant)
  }

  /// Cleans up after writers that were killed; a writer runs it when it takes the space's
  /// exclusive lock (holding it proves that no other writer is at work) and finds a killed
  /// writer's mark: removes temporary files and marks (and format 1's index, in format 2),
  /// and settles orphan blobs. An orphan original with an intact thumbnail is an import cut
  /// short between its blobs and its index: if both authenticate it is listed (or removed,
  /// when the same photo is listed already). The blobs of photos the journal says were
  /// deleted are removed (a delete cut short, or files a sync engine brought back), as is a
  /// thumbnail of no photo. In format 1, an orphan original without a thumbnail is a delete
  /// cut short (delete removes thumbnails first) and is removed. Only orphans are
  /// decrypted; anything else odd is left for `vault verify`. Does nothing while the index
  /// is damaged (every original is then an orphan: that is `verify --repair`'s work).
  func tidyAfterKilledWriters() throws {
    precondition(space.access == .write, "tidying needs the space's exclusive lock")
    guard space.indexDamage == nil else { return }
    let top = contents(of: space.directory, relativeTo: space.directory + "/")
    let photos = contents(of: space.photoDirectory, relativeTo: space.photoDirectory + "/")
    let thumbs = contents(of: space.thumbDirectory, relativeTo: space.thumbDirectory + "/")
    var changed = false
    let journal = journalContents(relativeTo: space.journalDirectory + "/")
    // This writer's own mark stays until it closes the space.
    let ownMark = space.writerMarkName.map { space.directory + "/" + $0 }
    for path in top.temporary.filter({ $0 != ownMark }) + journal.temporary + photos.temporary
      + thumbs.temporary
    {
      removeTree(path)
      changed = true
    }
    // Format 1's index beside a journal: an upgrade killed before it removed it (the
    // journal holds every photo it listed).
    if space.formatVersion == 2, unlink(space.indexPath) == 0 { changed = true }
    let listedIDs = Set(space.entries.map(\.record.id))
    let originals = Set(photos.ids)
    let thumbnails = Set(thumbs.ids)
    // A listed photo's thumbnail stays even without its original: in a synced copy the
    // original may simply not have arrived yet.
    for id in thumbs.ids where space.wasDeleted(id) || (!originals.contains(id) && !listedIDs.contains(id)) {
      unlink(space.thumbPath(id))
      changed = true
    }
    var orphans: [PhotoRecord] = []
    for id in photos.ids where !listedIDs.contains(id) {
      if space.wasDeleted(id) {
        unlink(space.photoPath(id))
        changed = true
        continue
      }
      guard thumbnails.contains(id) else {
        // Format 1 deleted thumbnails first, so this was a delete cut short. Format 2 names
        // deletions in the journal (handled above): here it is an original whose thumbnail
        // a sync engine has not brought yet, or damage, which `vault verify` reports.
        if space.formatVersion == 1 {
          unlink(space.photoPath(id))
          changed = true
        }
        continue
      }
      guard case .intact(let record, _) = checkOriginal(id: id, expected: nil), record.id == id,
        checkThumbnail(record) == nil
      else { continue }
      orphans.append(record)
    }
    var entries = Array(space.entries)
    var seen = listedIDs
    let (adopted, redundant) = placeOrphans(orphans, listed: &entries, seen: &seen)
    if !adopted.isEmpty { try space.saveEntries(entries) }
    for id in redundant {
      unlink(space.thumbPath(id))
      unlink(space.photoPath(id))
      changed = true
    }
    if changed {
      try syncDirectory(space.directory)
      try syncDirectory(space.photoDirectory)
      try syncDirectory(space.thumbDirectory)
    }
  }

  /// Decrypts an intact original in memory and writes a new thumbnail for it.
  private func remakeThumbnail(_ record: PhotoRecord) throws {
    let id = record.id
    let reader = try OriginalBlobReader(
      path: space.photoPath(id), id: id, master: space.master, what: space.describe(record))
    var original: [UInt8] = []
    original.reserveCapacity(Int(record.bytes))
    defer { original.wipe() }
    try reader.readContent { bytes in
      // Never grown beyond the record's size, so never copied (the blob is damage if it
      // holds more, which readContent reports).
      guard original.count + bytes.count <= original.capacity else { return }
      original.append(contentsOf: bytes)
    }
    var thumbnail = try thumbnailer.makeThumbnail(
      bytes: original, name: space.describe(record), format: record.format)
    defer { thumbnail.jpeg.wipe() }
    let file = try space.sealThumbnail(thumbnail.jpeg, id: id)
    try file.replace(space.thumbPath(record.id), syncFolder: false)
  }
}
