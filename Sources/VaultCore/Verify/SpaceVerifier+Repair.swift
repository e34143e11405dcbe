import Foundation

extension SpaceVerifier {
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
    var (entries, seen) = rebuilding ? ([], []) : listedEntriesToKeep(&summary)
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
    remakeThumbnails(of: entries, summary: &summary, interruption: interruption)
    if rebuilding || !entries.elementsEqual(space.entries) {
      try space.saveEntries(entries, rebuilding: rebuilding)
    }
    if rebuilding { summary.restoredFromTrash = try space.restoreAllOfTrash() }
    // Photos imported before vault read their details get them from the originals just read.
    let unread = details.filter { !space.hasDetails($0.key) }
    summary.detailsRead = try space.recordDetails(unread)
    summary.datesFound = space.entries.photoIDs.lazy.filter { unread[$0]?.taken != nil }.count
    // Last, what no index entry needs any more.
    try removeLeftovers(redundant: redundant, findings: findings, summary: &summary)
    return summary
  }

  /// The listed photos a repair keeps (each once), and their ids: a photo whose original is
  /// gone is dropped in format 1, kept in format 2.
  private func listedEntriesToKeep(_ summary: inout RepairSummary) -> (
    entries: [IndexEntry], seen: Set<BlobID>
  ) {
    var entries: [IndexEntry] = []
    var seen = Set<BlobID>()
    for entry in space.entries {
      guard seen.insert(entry.record.id).inserted else {
        summary.duplicatesDropped += 1
        continue
      }
      // An offloaded original is present: on the remote.
      if space.place(of: entry.record.id) != .missing {
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
    return (entries, seen)
  }

  /// Thumbnails: remade from the original wherever missing or damaged, until an
  /// interruption is requested.
  private func remakeThumbnails(
    of entries: [IndexEntry], summary: inout RepairSummary, interruption: Interruption?
  ) {
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
  }

  /// Removes second copies of listed photos, and the files `findings` names that no index
  /// entry needs (temporary files, torn journal segments once settled, leftovers of deleted
  /// photos, orphan thumbnails), then flushes the folders.
  private func removeLeftovers(redundant: [BlobID], findings: [VerifyFinding], summary: inout RepairSummary)
    throws
  {
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
  }

  /// Appends the intact orphans not yet listed to `listed`, in import order, as unselected
  /// entries; returns them, and the ids of orphans that are second copies of a listed
  /// photo (an import cut short, then run again): those add nothing, and removing them
  /// loses nothing.
  func placeOrphans(_ orphans: [PhotoRecord], listed: inout [IndexEntry], seen: inout Set<BlobID>)
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

  /// Has a decoder helper make a new thumbnail of an intact original, and writes it: an
  /// original up to `PhotoImporter.inMemoryFileLimit` is decrypted whole in memory and
  /// sent, a larger one is read by range as the helper asks.
  private func remakeThumbnail(_ record: PhotoRecord) throws {
    let id = record.id
    let name = space.describe(record)
    let input: DecoderInput
    if record.bytes <= PhotoImporter.inMemoryFileLimit {
      let reader = try OriginalBlobReader(path: space.photoPath(id), id: id, master: space.master, what: name)
      let original = PinnedBytes(count: Int(record.bytes))
      var filled = 0
      try reader.readContent { bytes in
        // Never beyond the record's size (the blob is damage if it holds more, which
        // readContent reports).
        let taken = min(bytes.count, original.count - filled)
        guard taken > 0, let source = bytes.baseAddress else { return }
        UnsafeMutableRawPointer(original.buffer.baseAddress! + filled).copyMemory(
          from: source, byteCount: taken)
        filled += taken
      }
      input = .bytes(original)
    } else {
      input = .ranges(try space.originalRanges(of: record))
    }
    let request = DecoderRequest(
      wants: [.thumbnail], thumbnailer: thumbnailer, format: record.format, name: name, size: record.bytes,
      delivery: input.delivery)
    // The helper answered what was asked (DecoderAnalysis checks it).
    var thumbnail = try thumbnailer.encode(decoders.analyse(request, input: input, name: name).thumbnail!)
    defer { thumbnail.jpeg.wipe() }
    let file = try space.sealThumbnail(thumbnail.jpeg, id: id)
    try file.replace(space.thumbPath(record.id), syncFolder: false)
  }
}
