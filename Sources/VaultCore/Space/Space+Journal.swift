import Foundation

// Writes to format 2's journal: changes appended, then compacted when due; a damaged journal rebuilt.
extension Space {
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
      indexDamage = nil
      publish(PhotoEntries(newEntries))
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

  /// `appendImported` alone, for the scale benchmark's builder (vault-scale).
  package func appendImported(_ records: [PhotoRecord]) throws {
    try appendImported(records, along: [])
  }

  /// Lists newly imported photos after the others, each with the details read from its
  /// file at import (empty ones too: the file was read, and said nothing).
  func appendImported(_ records: [PhotoRecord], along extra: [JournalEntry] = []) throws {
    let journal = try requireJournal()
    let now = Timestamp.now().nanosecondsSince1970
    var order = journal.state.nextOrder(now: now)
    let stamp = journal.state.nextStamp(now: now)
    var changes: [JournalEntry] = []
    for (record, name) in zip(records, catalog.namesForImport(of: records)) {
      changes.append(.added(record, order: order))
      changes.append(.details(record.id, PhotoDetails(of: record), stamp: stamp))
      changes.append(.shownName(record.id, name: name, stamp: stamp))
      order += 1
    }
    try self.record(changes + extra)
  }

  /// Lists photos whose blobs are in place (`PreparedPhoto.moveIntoPlace`): makes their
  /// names durable, then appends them to the journal. Not listed, so not imported: if that
  /// fails, their blobs are taken back out.
  /// `extra` entries (a Live Photo's identifiers) are written in the same journal record.
  func commitImported(_ records: [PhotoRecord], along extra: [JournalEntry] = []) throws {
    do {
      try syncDirectory(photoDirectory)
      try syncDirectory(thumbDirectory)
      try appendImported(records, along: extra)
    } catch {
      for record in records {
        unlink(photoPath(record.id))
        unlink(thumbPath(record.id))
      }
      throw error
    }
  }

  /// Appends `changes` to the journal and publishes the catalog of the space it leaves; then compacts the
  /// journal if it is due.
  func record(_ changes: [JournalEntry]) throws {
    let journal = try requireJournal()
    guard !changes.isEmpty else { return }
    let now = Timestamp.now().nanosecondsSince1970
    let changes: [JournalEntry] =
      changes + namesKept(along: changes, stamp: journal.state.nextStamp(now: now))
    let lastOrder = journal.state.lastOrder
    try journal.append(changes)
    // Imports, the common case, only add photos (and their details) after the last one:
    // no need to sort again.
    let appendsOnly = changes.allSatisfy {
      switch $0 {
      case .added(let record, let order):
        return order > lastOrder && !journal.state.deleted.contains(record.id)
      case .details, .liveIdentifier, .shownName: return true
      default: return false
      }
    }
    if appendsOnly {
      var appended: [IndexEntry] = []
      for case .added(let record, _) in changes {
        appended.append(IndexEntry(record: journal.state.photo(record.id)?.record ?? record, selected: false))
      }
      publish(appending: appended, by: changes)
    } else {
      // Albums and Live Photo identifiers change what is derived even when the list does not.
      publish(changes.contains(where: \.changesPhotoList) ? journal.state.entries() : entries)
    }
    compactJournalIfDue()
  }

  /// Folds the journal into one snapshot, then removes the blobs of deleted photos that a
  /// sync engine may have brought back. Torn segments are kept unless
  /// `settlingTornSegments` (see `SpaceJournal.compact`).
  package func compactJournal(settlingTornSegments: Bool = false) throws {
    guard let journal else { return }
    try journal.compact(settlingTornSegments: settlingTornSegments)
    removeBlobsOfDeletedPhotos()
  }

  /// Compacts when it is due, after a change is already durable in the journal: a failure
  /// then (a full disk, say) must not fail the change, which is done and will be reported;
  /// the next writer compacts.
  func compactJournalIfDue() {
    guard let journal, journal.isCompactionDue else { return }
    try? compactJournal()
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
    indexDamage = nil
    publish(rebuilt.state.entries())
  }

  /// Compacts a journal that ends in a torn record: the new snapshot holds every whole
  /// record, and the torn segments are removed. Called when a killed writer's mark says that
  /// the tear is a write cut short here, and by `verify --repair`.
  func settleTornJournal() throws {
    guard let journal, !journal.tornSegments.isEmpty, indexDamage == nil else { return }
    try compactJournal(settlingTornSegments: true)
  }

  /// Segments that end in a torn record, by name (`Journal/j-…`).
  public var tornSegments: [String] {
    (journal?.tornSegments ?? []).map { Self.journalFolder + "/" + $0 }
  }
}
