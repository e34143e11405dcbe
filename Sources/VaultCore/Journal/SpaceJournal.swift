import Foundation

/// A space's index in format 2: snapshots and journal segments in `Journal/`
/// (docs/FORMAT.md, "The journal"). Reading folds every snapshot and every segment into one
/// `SpaceState`; a writer appends its changes to a segment of its own, and compacts
/// everything into a new snapshot once the segments outgrow a fraction of it.
package final class SpaceJournal {
  static let snapshotPrefix = "s-"
  /// Compaction is due once the segments hold more than this fraction of the snapshots'
  /// bytes (so its cost, proportional to the space, is spread over as many changes)…
  static let compactionFraction = 4
  /// …or when there are this many segments (each is a file to open).
  static let compactionSegmentCount = 128
  /// …but never for less than this many bytes of segments.
  static let compactionMinimumBytes = 1 << 20
  /// A snapshot is read whole.
  static let snapshotSizeLimit = 1 << 30
  /// A space whose journal is smaller than this is compacted once it has more than
  /// `smallSpaceSegmentCount` segments.
  static let smallSpaceBytes = 256 << 10
  static let smallSpaceSegmentCount = 8
  /// Snapshots from this size on are decrypted on another thread while their entries are
  /// applied.
  static let parallelDecodingSize = 1 << 20

  let directory: String
  private let master: MasterKey
  private let journalKey: SecureBytes
  private(set) var state = SpaceState()
  /// The files read at load time (and written since): what a compaction replaces.
  private var snapshotNames: [String] = []
  private var segmentNames: [String] = []
  private(set) var snapshotBytes = 0
  private(set) var segmentBytes = 0
  /// Segments that end in a torn record: kept until they are settled (see `compact`).
  private(set) var tornSegments: [String] = []
  /// Whether a snapshot or a segment's record authenticated under the space's key: a
  /// journal folder with nothing of the space in it (made by hand) proves no key.
  private(set) var hasAuthenticatedContent = false
  /// The photos that the segments read at load time say were deleted.
  private var deletedInSegments = Set<BlobID>()
  private var writer: JournalSegmentWriter?
  private var writerBytesCounted = 0

  private init(directory: String, master: MasterKey) {
    self.directory = directory
    self.master = master
    journalKey = master.journalKey()
  }

  /// Reads every snapshot and segment. Throws `.damagedIndex` for the first file that is
  /// damaged (not for a torn tail).
  static func load(directory: String, master: MasterKey) throws -> SpaceJournal {
    let journal = SpaceJournal(directory: directory, master: master)
    try journal.readAll()
    return journal
  }

  /// What can still be read of a damaged journal, for `verify --repair`: every file that
  /// reads, and of a damaged segment its records before the damage. Its deletions and
  /// selections are kept, so that a rebuild brings back no deleted photo.
  static func salvage(directory: String, master: MasterKey) -> SpaceState {
    let journal = SpaceJournal(directory: directory, master: master)
    // Damage is skipped, so nothing is thrown.
    try? journal.readAll(skippingDamage: true)
    return journal.state
  }

  private func readAll(skippingDamage: Bool = false) throws {
    let names: [String]
    do {
      names = try listVaultFolder(directory).sorted()
    } catch {
      throw VaultError.damagedIndex(
        path: directory, reason: "the journal folder cannot be read (\(error))")
    }
    // Snapshots first: their photos come in list order, and the segments' changes come after
    // them, so a big space's list is built without a sort (any order gives the same state).
    let snapshotsFirst =
      names.filter { $0.hasPrefix(Self.snapshotPrefix) }
      + names.filter { !$0.hasPrefix(Self.snapshotPrefix) }
    for name in snapshotsFirst {
      let path = directory + "/" + name
      // A FIFO would hang the read, a device or link is nothing vault wrote.
      if Self.isJournalFile(name) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
          if skippingDamage { continue }
          throw VaultError.damagedIndex(path: path, reason: "not a regular file")
        }
      }
      do {
        if let id = Self.id(in: name, prefix: Self.snapshotPrefix) {
          snapshotBytes += try readSnapshot(path: path, id: id)
          snapshotNames.append(name)
          hasAuthenticatedContent = true
        } else if let id = Self.id(in: name, prefix: JournalSegment.namePrefix) {
          let contents = try JournalSegment.read(path: path, id: id, key: journalKey) { entry in
            state.apply(entry)
            hasAuthenticatedContent = true
            if case .deleted(let id) = entry { deletedInSegments.insert(id) }
          }
          segmentBytes += fileSize(path)
          segmentNames.append(name)
          if contents.tornTail { tornSegments.append(name) }
        }
      } catch  where skippingDamage {
        continue
      }
      // Anything else (a temporary file, a sync engine's file) is not part of the journal;
      // `vault verify` names it.
    }
  }

  /// Whether `name` is a snapshot's or a segment's.
  static func isJournalFile(_ name: String) -> Bool {
    id(in: name, prefix: snapshotPrefix) != nil
      || id(in: name, prefix: JournalSegment.namePrefix) != nil
  }

  static func id(in name: String, prefix: String) -> BlobID? {
    guard name.hasPrefix(prefix) else { return nil }
    return BlobID(hex: String(name.dropFirst(prefix.count)))
  }

  /// The state's photos, with the imports of one photo found among them as they were read
  /// (`SpaceState.takeEntriesWithImportsFound`).
  func takeEntriesWithImportsFound() -> (entries: PhotoEntries, imports: DuplicateImports?) {
    state.takeEntriesWithImportsFound()
  }

  private func readSnapshot(path: String, id: BlobID) throws -> Int {
    // Applied to a copy of the state, which becomes the state only if the whole snapshot
    // reads well (a damaged one adds nothing). The snapshot is kept (and wiped when the last
    // photo it lists goes): its records are decoded only when asked for.
    var application = SpaceState.SnapshotApplication(applyingTo: state)
    do {
      let reader = try BlobReader(
        path: path, kind: .snapshot, key: master.blobKey(kind: .snapshot, id: id),
        what: "the snapshot")
      // Snapshots came with format 2: never unpadded.
      guard reader.version == BlobFormat.paddedVersion else {
        throw VaultError.damagedIndex(
          path: path, reason: "unsupported snapshot version \(reader.version)")
      }
      // A big snapshot is decrypted and read on another thread while its entries are
      // applied here.
      _ = try SnapshotBytes.read(
        from: reader, limit: Self.snapshotSizeLimit, alongsideFrom: Self.parallelDecodingSize
      ) { snapshot, items in
        application.apply(items, of: snapshot)
      }
    } catch VaultError.damagedBlob(_, let reason) {
      throw VaultError.damagedIndex(path: path, reason: reason)
    } catch let error as JournalDecodingError {
      throw VaultError.damagedIndex(path: path, reason: "entry \(error.entry) \(error.reason)")
    } catch is SpaceState.SnapshotNotPadded {
      throw VaultError.damagedIndex(path: path, reason: "it is not padded as snapshots are")
    }
    state = application.state
    return fileSize(path)
  }

  // MARK: Writing

  /// Appends `entries` to this writer's segment (made at the first append), durably, then
  /// applies them.
  func append(_ entries: [JournalEntry]) throws {
    guard !entries.isEmpty else { return }
    if writer == nil || writer!.isBroken {
      let segment = try JournalSegmentWriter(directory: directory, key: journalKey)
      writer = segment
      segmentNames.append(JournalSegment.namePrefix + segment.id.hex)
      writerBytesCounted = 0
    }
    try writer!.append(entries)
    segmentBytes += writer!.fileLength - writerBytesCounted
    writerBytesCounted = writer!.fileLength
    for entry in entries { state.apply(entry) }
  }

  /// The deleted photos whose blobs a sync engine may have brought back since this copy
  /// removed them: a copy that had not seen a deletion still holds the blobs, and a sync
  /// that never deletes (a union copy, `rsync` without `--delete`) copies them back beside
  /// the journal file that deleted them. That file is a segment, unless the deleting copy
  /// compacted it away; then the other copy's older snapshot comes back with the blobs, and
  /// the journal holds more than one snapshot. So: the deletions of the segments (their
  /// cost is bounded by the compaction limits, and they were just read), or every deletion
  /// when there are several snapshots (each was read whole).
  var deletionsToSettle: Set<BlobID> {
    snapshotNames.count > 1 ? state.deleted : deletedInSegments
  }

  var isCompactionDue: Bool {
    let segments = segmentNames.count - tornSegments.count
    // A small space (a decoy's, say) is compacted after a few commands, so that its files
    // do not keep a long log of its last commands (one segment each).
    let small = snapshotBytes + segmentBytes < Self.smallSpaceBytes
    return segments > (small ? Self.smallSpaceSegmentCount : Self.compactionSegmentCount)
      || segmentBytes > max(Self.compactionMinimumBytes, snapshotBytes / Self.compactionFraction)
  }

  /// Writes the whole state as one new snapshot, then removes the snapshots and segments it
  /// replaces. A kill at any point leaves files whose union is the same state. Segments that
  /// end in a torn record are kept, unless `settlingTornSegments`: only a killed writer's
  /// mark says that one is a write cut short here, and not a copy still being synced, bit
  /// rot, or a change someone made (which `vault verify` reports).
  func compact(settlingTornSegments: Bool = false) throws {
    let name = try Self.writeSnapshot(of: state, in: directory, master: master)
    writer = nil
    let kept = settlingTornSegments ? [] : tornSegments
    for old in snapshotNames + segmentNames where !kept.contains(old) {
      unlink(directory + "/" + old)
    }
    try syncDirectory(directory)
    snapshotNames = [name]
    snapshotBytes = fileSize(directory + "/" + name)
    deletedInSegments = []
    segmentNames = kept
    segmentBytes = kept.reduce(0) { $0 + fileSize(directory + "/" + $1) }
    tornSegments = kept
  }

  /// Writes `state` as a snapshot named `s-<id>` into `folder`, durably (the file and the
  /// folder are synced).
  @discardableResult
  package static func writeSnapshot(of state: SpaceState, in folder: String, master: MasterKey) throws
    -> String
  {
    let id = BlobID.random()
    // The blob pads it.
    var encoded = JournalEntry.encodeAll(state.compacted())
    defer { encoded.wipe() }
    let file = try TemporaryFile(in: folder)
    let writer = try BlobWriter(
      kind: .snapshot, key: master.blobKey(kind: .snapshot, id: id), output: file)
    try writer.write(encoded)
    try writer.finish()
    let name = snapshotPrefix + id.hex
    try file.replace(folder + "/" + name)
    return name
  }
}

func fileSize(_ path: String) -> Int {
  var info = stat()
  return stat(path, &info) == 0 ? Int(info.st_size) : 0
}
