import Foundation

/// Photos of an import moved into place but not yet listed, and the events waiting on
/// them, in the files' order: listed in one journal write, then reported (the export's
/// `Batch` has the same shape). A photo is reported as added only once it is listed.
/// `add` and `serve` commit through here alike: the same duplicate check, the same journal
/// write, the same Live Photo pairing.
struct ImportBatch {
  /// The most photos committed between two journal writes.
  static let limit = 64

  /// The space the photos go into. `serve` points it at the writer of each upload's change
  /// (`Space.change`): one batch pairs the Live Photos of all the session's uploads.
  var space: Space
  /// Moving: removes the sources of the photos the space holds once they are listed.
  let removal: SourceRemoval?
  private var records: [PhotoRecord] = []
  private var events: [ImportEvent] = []
  /// Moving: the files of this batch's photos in the space, with their content hashes.
  private var sources: [(path: String, contentHash: String)] = []
  /// Live Photos found among the photos of the whole import, and the entries that record
  /// those of this batch.
  private var pairing = LivePairing()
  private var liveEntries: [JournalEntry] = []
  /// The photos this import added so far: a Live Photo's half that is not one of them was
  /// in the space before.
  private var imported: Set<BlobID> = []

  /// Moving: the Live Photos found by name among the import's files, which leave together.
  private var hold: LiveSourceHold?
  /// Moving: what became of sources whose own event was reported in an earlier batch.
  private var lateRemovals: [ImportEvent] = []
  /// What became of the Live Photos of the photos just committed, waiting to be reported.
  private var liveNews: [BlobID: ImportEvent] = [:]

  init(space: Space, removal: SourceRemoval?, files: [String] = []) {
    self.space = space
    self.removal = removal
    if removal != nil { hold = LiveSourceHold(files: files) }
  }

  /// Photos moved into place, waiting to be listed.
  var count: Int { records.count }
  /// Whether nothing waits to be reported.
  var isEmpty: Bool { events.isEmpty }

  /// Takes one file's outcome, in order: a photo is moved into place (unless the space, or
  /// this batch, holds its content already), anything else becomes an event to report.
  /// A file found in a folder that is not a photo is skipped, unless its name says it is.
  mutating func take(
    _ result: Result<PreparedImport, VaultError>, of path: String, skippingNonPhoto: Bool = false
  ) throws {
    if case .failure = result, let mate = hold?.failed(path) {
      lateRemovals.append(
        .sourceKept(path: mate, reason: .io(path: mate, reason: LiveSourceHold.reason(path))))
    }
    switch result {
    case .failure(let error):
      if case .unsupportedFormat = error, skippingNonPhoto, !ImageFormat.nameSaysPhoto(path) {
        events.append(.skipped(path: path, reason: error))
      } else {
        events.append(.failed(path: path, error: error))
      }
    case .success(.spaceNotOpened):
      preconditionFailure("files are prepared into a space only once it is open")
    case .success(.duplicate(let contentHash)):
      events.append(.duplicate(path: path, contentHash: contentHash))
      noteSource(path, contentHash: contentHash)
    case .success(.photo(let photo)):
      // Prepared alongside another file of the same content, or after another command
      // stored it.
      if holds(photo.record.contentHash) {
        photo.discard()
        events.append(.duplicate(path: path, contentHash: photo.record.contentHash))
        noteSource(path, contentHash: photo.record.contentHash)
        return
      }
      do {
        try photo.moveIntoPlace(space: space)
      } catch let error as VaultError {
        photo.discard()
        events.append(.failed(path: path, error: error))
        return
      }
      records.append(photo.record)
      imported.insert(photo.record.id)
      liveEntries += pairing.entries(
        for: photo.record, identifier: photo.liveIdentifier,
        place: (path as NSString).deletingLastPathComponent)
      if let warning = photo.warning { events.append(.warning(path: path, message: warning)) }
      events.append(.added(path: path, record: photo.record))
      noteSource(path, contentHash: photo.record.contentHash)
    }
  }

  /// Whether the space lists a photo of this content, or one of this batch waiting to be
  /// listed has it.
  private func holds(_ contentHash: String) -> Bool {
    let hash = ContentHash(contentHash)
    return space.listedPhoto(withContentHash: contentHash) != nil || records.contains { $0.hash == hash }
  }

  private mutating func noteSource(_ path: String, contentHash: String) {
    if removal != nil { sources.append((path, contentHash)) }
  }

  /// Lists the photos moved into place in one journal write, with their Live Photos'
  /// entries: the only step that changes the space's list. If that fails, their blobs are
  /// gone and nothing of the batch is left to report (`serve` goes on with the next
  /// upload).
  mutating func commit() throws {
    guard !records.isEmpty else { return }
    let pairedBefore = liveEntries.isEmpty ? LivePairs() : space.livePairs()
    do {
      try space.commitImported(records, along: liveEntries)
    } catch {
      (records, liveEntries, events, sources) = ([], [], [], [])
      throw error
    }
    removal?.noteCommitted(records)
    liveNews = liveEvents(pairedBefore: pairedBefore)
    records.removeAll()
    liveEntries.removeAll()
  }

  /// After `commit`: (moving) removes the sources, then reports every event in order,
  /// each added or duplicate photo followed by what became of its source, with the number
  /// of files done so far, counting them into `summary`.
  mutating func report(into summary: inout ImportSummary, report: (ImportEvent, Int) -> Void) throws {
    precondition(records.isEmpty, "photos are reported once they are listed")
    defer { liveNews.removeAll() }
    // Only now is every photo of the batch durable in the journal.
    var removals = try removeSources()
    for event in events {
      summary.count(event)
      report(event, summary.filesDone)
      if case .added(_, let record) = event, let news = liveNews[record.id] {
        report(news, summary.filesDone)
      }
      switch event {
      case .added(let path, _), .duplicate(let path, _):
        guard let removed = removals.removeValue(forKey: path) else { break }
        summary.count(removed)
        report(removed, summary.filesDone)
      default: break
      }
    }
    events.removeAll()
    // A Live Photo's half held from an earlier batch, removed or kept with its mate.
    for event in lateRemovals + removals.keys.sorted().map({ removals[$0]! }) {
      summary.count(event)
      report(event, summary.filesDone)
    }
    lateRemovals.removeAll()
  }

  /// What became of the Live Photos of this batch's photos, just listed, with halves the
  /// space held before this import (`pairedBefore` its pairs then): each now one with such a
  /// half (`paired`, naming the still it took the MOV from), or each still that carries the
  /// identifier of such a pair's MOV and stays a photo of its own (`livePairKept`).
  private func liveEvents(pairedBefore: LivePairs) -> [BlobID: ImportEvent] {
    var paths: [BlobID: String] = [:]
    for case .added(let path, let record) in events { paths[record.id] = path }
    var news: [BlobID: ImportEvent] = [:]
    for case .liveIdentifier(let id, let identifier) in liveEntries {
      guard let path = paths[id], let record = records.first(where: { $0.id == id }) else { continue }
      if let pair = space.livePair(containing: id) {
        let mate = pair.still.id == id ? pair.motion : pair.still
        guard !imported.contains(mate.id) else { continue }
        let displaced = pairedBefore.stillOfMotion[mate.id].flatMap { space.journal?.state.photo($0)?.record }
        news[id] = .paired(path: path, record: record, mate: mate, displaced: displaced)
      } else if LiveHalf(record.format) == .still, let kept = space.livePair(ofIdentifier: identifier),
        !imported.contains(kept.still.id), !imported.contains(kept.motion.id)
      {
        news[id] = .livePairKept(path: path, record: record, motion: kept.motion, still: kept.still)
      }
    }
    return news
  }

  /// Moving, at the end of the import: the Live Photo halves still held (their mates were
  /// never stored) stay, and are reported so.
  mutating func keepHeldSources(into summary: inout ImportSummary, report: (ImportEvent, Int) -> Void) {
    for (path, reason) in hold?.leftOver() ?? [] {
      let event = ImportEvent.sourceKept(path: path, reason: .io(path: path, reason: reason))
      summary.count(event)
      report(event, summary.filesDone)
    }
  }

  /// Moving: removes the sources of the batch's photos, and says what became of each.
  private mutating func removeSources() throws -> [String: ImportEvent] {
    var removals: [String: ImportEvent] = [:]
    guard let removal else {
      sources.removeAll()
      return removals
    }
    for source in sources {
      switch hold?.ready(source.path, contentHash: source.contentHash) ?? .remove([source]) {
      case .keep(let reason):
        removals[source.path] = .sourceKept(path: source.path, reason: .io(path: source.path, reason: reason))
      case .remove(let files):
        for file in files {
          do {
            try removal.remove(file.path, contentHash: file.contentHash)
            removals[file.path] = .sourceRemoved(path: file.path)
          } catch let error as VaultError {
            removals[file.path] = .sourceKept(path: file.path, reason: error)
          }
        }
      }
    }
    removal.syncFolders()
    sources.removeAll()
    return removals
  }
}
