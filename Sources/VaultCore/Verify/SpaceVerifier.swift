import Foundation

/// Checks every blob of an unlocked space against the index, on all cores, and repairs
/// what can be repaired without guessing. It never deletes an original that is damaged.
public final class SpaceVerifier {
  let space: Space
  let vaultPath: String
  let thumbnailer: Thumbnailer
  let parallelism: Int
  /// The decoder helpers that read details and remake thumbnails (started when first
  /// needed: most runs need none).
  let decoders: DecoderPool
  /// What the workers check each photo with.
  let checker: PhotoChecker

  public init(
    space: Space, thumbnailer: Thumbnailer = Thumbnailer(), parallelism: Int? = nil,
    decoderLimits: DecoderLimits = DecoderLimits()
  ) {
    self.space = space
    vaultPath = parentFolder(space.directory)
    self.thumbnailer = thumbnailer
    self.parallelism = max(1, parallelism ?? ProcessInfo.processInfo.activeProcessorCount)
    decoders = DecoderPool(size: self.parallelism, limits: decoderLimits)
    checker = PhotoChecker(
      blobs: space.blobs, thumbnailer: thumbnailer, decoders: decoders,
      detailsMemory: MemoryBudget(total: PhotoImporter.memoryBudget),
      remoteCopies: RemoteCopyListing(blobs: space.blobs))
  }

  /// See `PhotoChecker.checkOriginal`.
  func checkOriginal(
    id: BlobID, expected: PhotoRecord?, depth: VerifyDepth = .full, readingDetails: Bool = false
  ) -> OriginalState {
    checker.checkOriginal(id: id, expected: expected, depth: depth, readingDetails: readingDetails)
  }

  /// See `PhotoChecker.checkThumbnail`.
  func checkThumbnail(_ record: PhotoRecord, depth: VerifyDepth = .full) -> String?? {
    checker.checkThumbnail(record, depth: depth)
  }

  /// The files of a folder, split into blob ids, temporary files and anything else.
  struct FolderContents {
    var ids: [BlobID] = []
    var temporary: [String] = []
    var unexpected: [String] = []
  }

  func contents(of folder: String, relativeTo prefix: String) -> FolderContents {
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
    /// `inTrash`: an item of Recently Deleted, numbered as `vault trash` numbers it.
    /// `name`: the one the file shows under (`ShownFileNames`), as `list` and export name it.
    case listed(number: Int, record: PhotoRecord, name: String, listedBefore: Bool, inTrash: Bool = false)
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
  private static func check(
    _ photo: PhotoToCheck, with checker: PhotoChecker, depth: VerifyDepth, readingDetails: Set<BlobID>?
  ) -> PhotoCheck {
    var result = PhotoCheck()
    switch photo {
    case .listed(let number, let record, let shownName, listedBefore: true, let inTrash):
      let name = inTrash ? VerifyFinding.trashNamed(shownName) : shownName
      result.findings.append(.listedTwice(number: number, name: name, id: record.id.hex))
    case .listed(let number, let record, let shownName, listedBefore: false, let inTrash):
      let id = record.id.hex
      let name = inTrash ? VerifyFinding.trashNamed(shownName) : shownName
      switch checker.checkOriginal(
        id: record.id, expected: record, depth: depth,
        readingDetails: readingDetails?.contains(record.id) == true)
      {
      case .missing:
        result.findings.append(.missingOriginal(number: number, name: name, id: id))
      case .damaged(let reason):
        result.findings.append(.damagedOriginal(number: number, name: name, id: id, reason: reason))
      case .unchecked(let reason):
        result.findings.append(.uncheckedOriginal(number: number, name: name, id: id, reason: reason))
      case .intact(_, let details):
        if let details { result.details = (record.id, details) }
      }
      switch checker.checkThumbnail(record, depth: depth) {
      case .some(nil):
        result.findings.append(.missingThumbnail(number: number, name: name, id: id))
      case .some(.some(let reason)):
        result.findings.append(.damagedThumbnail(number: number, name: name, id: id, reason: reason))
      case .none: break
      }
      if result.findings.isEmpty { result.findings.append(.intact(number: number, name: name)) }
    case .orphan(let id):
      switch checker.checkOriginal(id: id, expected: nil, depth: depth, readingDetails: readingDetails != nil)
      {
      case .intact(let record, let details):
        result.findings.append(.orphanOriginal(id: id.hex, name: record.name))
        result.intactOrphan = record
        if let details { result.details = (id, details) }
      case .damaged(let reason):
        result.findings.append(.damagedOriginal(number: nil, name: nil, id: id.hex, reason: reason))
      case .unchecked(let reason):
        result.findings.append(.uncheckedOriginal(number: nil, name: nil, id: id.hex, reason: reason))
      case .missing: break
      }
    }
    return result
  }

  /// What `inspect` found: the findings, the records of the intact orphan originals it read
  /// on the way, the details it read, and, when an interruption stopped it, how far it got.
  typealias Inspection = (
    findings: [VerifyFinding], orphans: [PhotoRecord], details: [BlobID: PhotoDetails],
    stopped: (done: Int, total: Int)?
  )

  /// What verify reports, and the records of the intact orphan originals it read on the way
  /// (so that repair can adopt them without decrypting them again). Photos are checked on
  /// all cores, a bounded number at a time, and reported in their order. When
  /// `interruption` is requested, stops before the next photo in order and says how far it
  /// got in `stopped`.
  ///
  /// With `readingDetails`, the details of listed photos that have none, and of orphans,
  /// are read from their originals as they are checked (see `checkOriginal`).
  func inspect(
    depth: VerifyDepth, readingDetails: Bool = false, progress: (Int, Int) -> Void,
    interruption: Interruption?
  ) -> Inspection {
    let photos = contents(of: space.photoDirectory, relativeTo: Space.photoFolder + "/")
    let thumbs = contents(of: space.thumbDirectory, relativeTo: Space.thumbFolder + "/")
    let top = contents(of: space.directory, relativeTo: "")
    let listedIDs = Set(space.entries.photoIDs)
    var inspection = checkPhotos(
      orphanCandidates: photos.ids, listedIDs: listedIDs, depth: depth, readingDetails: readingDetails,
      progress: progress, interruption: interruption)
    guard inspection.stopped == nil else { return inspection }
    inspection.findings += leftoverBlobFindings(photos: photos.ids, thumbs: thumbs.ids, listedIDs: listedIDs)
    inspection.findings += folderFindings(top: top, photos: photos, thumbs: thumbs)
    return inspection
  }

  /// The index's findings, then each photo's, checked on all cores: the listed photos and
  /// the originals among `orphanCandidates` that the index does not list.
  private func checkPhotos(
    orphanCandidates: [BlobID], listedIDs: Set<BlobID>, depth: VerifyDepth, readingDetails: Bool,
    progress: (Int, Int) -> Void, interruption: Interruption?
  ) -> Inspection {
    var findings = checkIndex()
    var intactOrphans: [PhotoRecord] = []
    var details: [BlobID: PhotoDetails] = [:]
    var seen = Set<BlobID>()
    // Checked and numbered in the browser's list (every photo, by date taken), so that a
    // number verify prints is the one `vault list` shows for the same photo.
    let browser = space.makeBrowser()
    // Each file named as `list` and an export name it (verify reads every file anyway).
    let names = space.catalog.shownFileNames
    // A Live Photo's MOV is checked after its still, under the same number, and so are the
    // hidden imports of each (`DuplicateImports`), under its name: their files are the photo's too.
    let listed: [PhotoToCheck] = (0..<browser.count).flatMap { index -> [PhotoToCheck] in
      let photo = browser.photo(at: index)!
      return photo.records.flatMap { file in
        ([file] + space.otherImports(of: file.id)).map { record in
          .listed(
            number: index + 1, record: record, name: names.of(file),
            listedBefore: !seen.insert(record.id).inserted)
        }
      }
    }
    // Then Recently Deleted's items, under their numbers there (`trashNamed`).
    let trashed: [PhotoToCheck] = space.catalog.trashItems.enumerated().flatMap { offset, item in
      item.files.compactMap(space.catalog.trashedRecord).map { record in
        .listed(
          number: offset + 1, record: record, name: names.of(record),
          listedBefore: !seen.insert(record.id).inserted,
          inTrash: true)
      }
    }
    let toCheck =
      listed + trashed
      + orphanCandidates.filter { !listedIDs.contains($0) && !space.wasDeleted($0) }.map { .orphan($0) }
    let total = toCheck.count
    let needingDetails: Set<BlobID>? =
      readingDetails ? Set(space.entries.photoIDs.lazy.filter { !self.space.hasDetails($0) }) : nil
    // Each check holds one open blob and one 64 KiB chunk at a time; a result is a few
    // findings. Nil is a photo a worker skipped because of the interruption.
    let pipeline = PreparationPipeline<PhotoToCheck, PhotoCheck?>(
      items: toCheck, limit: parallelism * 2, interruption: interruption,
      prepare: { [checker] photo in
        if interruption?.isRequested == true { return .success(nil) }
        return .success(Self.check(photo, with: checker, depth: depth, readingDetails: needingDetails))
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
    return (findings, intactOrphans, details, nil)
  }

  /// Blobs of deleted photos, and thumbnails of no photo.
  private func leftoverBlobFindings(photos: [BlobID], thumbs: [BlobID], listedIDs: Set<BlobID>)
    -> [VerifyFinding]
  {
    var findings: [VerifyFinding] = []
    let originals = Set(photos)
    for id in photos where space.wasDeleted(id) {
      findings.append(.deletedPhotoLeftover(path: Space.photoFolder + "/" + id.hex))
    }
    for id in thumbs where space.wasDeleted(id) {
      findings.append(.deletedPhotoLeftover(path: Space.thumbFolder + "/" + id.hex))
    }
    // A listed photo's thumbnail is no orphan, even without its original (which a sync
    // engine may not have brought yet).
    for id in thumbs where !originals.contains(id) && !space.wasDeleted(id) && !listedIDs.contains(id) {
      findings.append(.orphanThumbnail(id: id.hex))
    }
    return findings
  }

  /// Temporary files, and files vault did not write, in the space's folders.
  private func folderFindings(top: FolderContents, photos: FolderContents, thumbs: FolderContents)
    -> [VerifyFinding]
  {
    let known = Set([
      Space.keyFile, Space.indexFile, Space.photoFolder, Space.thumbFolder, Space.journalFolder,
      Space.offloadedFolder,
      // A password change cut short, which the next writer settles.
      Space.nextKeyFile,
      Space.recoveryFile,
    ])
    let journal = journalContents(relativeTo: Space.journalFolder + "/")
    let stubs = contents(of: space.blobs.offloadedDirectory, relativeTo: Space.offloadedFolder + "/")
    // This command's own mark is no leftover.
    let temporary =
      top.temporary.filter { $0 != space.writerMarkName } + journal.temporary + photos.temporary
      + thumbs.temporary + stubs.temporary
      + leftoverSpaceFolders()
    let unexpected =
      top.unexpected.filter { !known.contains($0) } + journal.unexpected + photos.unexpected
      + thumbs.unexpected
    return temporary.map { .temporaryFile(path: $0) } + unexpected.map { .unexpectedFile(path: $0) }
  }

  /// The journal folder's temporary and unexpected files (its snapshots and segments are
  /// checked when the space is opened).
  func journalContents(relativeTo prefix: String) -> FolderContents {
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
}
