import CSodium
import Foundation

/// What happened to one file of an import, reported in the order the files were given.
public enum ImportEvent: Sendable {
  /// The photo is stored and listed; reported only once the index holding it is on disk.
  case added(path: String, record: PhotoRecord)
  /// The space already holds a photo with the same content (its content hash given, so
  /// that the photo can be found after `--move` removed the file).
  case duplicate(path: String, contentHash: String)
  /// The file was not imported.
  case failed(path: String, error: VaultError)
  /// The photo was imported, but its decoder complained (e.g. premature end of data).
  case warning(path: String, message: String)
  /// A file found in a folder is not a photo vault imports (a README, a video): it is
  /// passed over, not counted as a failure.
  case skipped(path: String, reason: VaultError)
  /// Moving: the source of a photo the space holds (added or a duplicate) was removed, once
  /// the space's copy read back intact (see `SourceRemoval`). Reported after its `added`
  /// or `duplicate`.
  case sourceRemoved(path: String)
  /// Moving: the photo is in the space, but its source file stays, for this reason.
  case sourceKept(path: String, reason: VaultError)
}

/// The files an import was given, with folders expanded.
public struct CollectedFiles: Sendable {
  /// Files to import, in order.
  public var files: [String] = []
  /// Named paths that cannot be read.
  public var failures: [ImportEvent] = []
  /// The files found by walking a folder (not named one by one): those that are not
  /// photos are skipped rather than failed.
  public var foundInFolders: Set<String> = []
}

/// Totals of an import.
public struct ImportSummary: Equatable, Sendable {
  public var added = 0
  public var duplicates = 0
  public var failed = 0
  public var warnings = 0
  /// Files found in folders that are not photos.
  public var skipped = 0
  /// Moving: source files removed, and source files of photos in the space that stay.
  public var sourcesRemoved = 0
  public var sourcesKept = 0
  /// The import stopped early at a request (the files not reached are not reported).
  public var interrupted = false
}

/// Imports files into a space: each file is read, recognised by content, hashed, turned
/// into a thumbnail and encrypted on all cores, a few at a time; photos become visible
/// when the index listing them is written. A file that fails leaves nothing behind.
public final class PhotoImporter {
  private let thumbnailer: Thumbnailer
  private let parallelism: Int
  /// Memory shared by the photos being prepared at once, whatever the number of cores.
  private let memory: MemoryBudget
  private let flusher = BackgroundFlusher()

  /// The memory all photos in flight may use together (README, "Limits": with the rest of
  /// the process, an import stays under 512 MiB besides the key derivation).
  public static let memoryBudget = 384 << 20
  /// Files up to this size are read once into memory and hashed, decoded and encrypted
  /// from those bytes; larger ones are read twice through their descriptor.
  static let inMemoryFileLimit = 64 << 20
  /// The most photos prepared at once, however many cores: each has read its header
  /// (up to about 1 MiB of decoder state and kept markers) before it reserves memory.
  static let maxInFlight = 32
  /// What preparing any photo takes besides its decoding and its bytes: read and
  /// encryption buffers, the thumbnail.
  static let photoMemory = 1 << 20

  public init(thumbnailer: Thumbnailer = Thumbnailer(), parallelism: Int? = nil) {
    self.thumbnailer = thumbnailer
    self.parallelism = max(1, parallelism ?? ProcessInfo.processInfo.activeProcessorCount)
    memory = MemoryBudget(total: max(Self.memoryBudget, thumbnailer.memoryLimit + Self.inMemoryFileLimit))
  }

  /// Expands folders (recursively, skipping hidden entries and not following linked
  /// folders) into a sorted list of files; paths that cannot be read come back as failures.
  public static func collectFiles(_ paths: [String]) -> CollectedFiles {
    var collected = CollectedFiles()
    var seen = Set<String>()
    func add(_ path: String, found: Bool) {
      // The same file reached twice (`card` and `./card/b`, or a hard link) is imported
      // once: by --move, a second time would find it gone.
      var info = stat()
      let key =
        stat(path, &info) == 0 ? "\(info.st_dev):\(info.st_ino)" : (path as NSString).standardizingPath
      guard seen.insert(key).inserted else { return }
      collected.files.append(path)
      if found { collected.foundInFolders.insert(path) }
    }
    func walk(_ folder: String) {
      let names: [String]
      do {
        names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
      } catch {
        collected.failures.append(.failed(path: folder, error: .posix(folder)))
        return
      }
      for name in names where !name.hasPrefix(".") {
        let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        var info = stat()
        guard lstat(path, &info) == 0 else { continue }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: walk(path)
        case S_IFREG: add(path, found: true)
        case S_IFLNK:
          var target = stat()
          if stat(path, &target) == 0 && (target.st_mode & S_IFMT) == S_IFREG { add(path, found: true) }
        default: continue
        }
      }
    }
    for path in paths {
      var info = stat()
      guard stat(path, &info) == 0 else {
        collected.failures.append(.failed(path: path, error: .posix(path)))
        continue
      }
      switch info.st_mode & S_IFMT {
      case S_IFDIR: walk(path)
      case S_IFREG: add(path, found: false)
      default:
        collected.failures.append(.failed(path: path, error: .io(path: path, reason: "not a regular file")))
      }
    }
    return collected
  }

  /// Imports `files`, calling `report` for each on the calling thread, in order, with the
  /// number of files done so far. Throws only when the space itself cannot be written; the
  /// photos reported as added before that stay imported.
  ///
  /// Files are prepared (read, hashed, thumbnailed, encrypted under temporary names) on
  /// all cores, at most `2 × parallelism` (and `maxInFlight`) at a time, and committed here
  /// in order. The index is written whenever the next file is not ready yet, or every
  /// `flushInterval` photos, and a photo is reported as added only once an index listing it
  /// is on disk.
  ///
  /// Once `interruption` is requested, no new file is started; the photos already moved
  /// into place are committed and reported, those prepared but not committed are discarded,
  /// and the summary says `interrupted`.
  @discardableResult
  public func importFiles(
    _ files: [String], skippingNonPhotos foundInFolders: Set<String> = [], into space: Space,
    movingSources: Bool = false, interruption: Interruption? = nil, report: (ImportEvent, Int) -> Void
  ) throws -> ImportSummary {
    try importFiles(
      files, skippingNonPhotos: foundInFolders, movingSources: movingSources, interruption: interruption,
      unlocking: { space }, report: report)
  }

  /// Imports `files` into the space that `unlock` opens (for writing). Decoding starts at
  /// once, on the other cores, while `unlock` runs its key derivation here; nothing is
  /// written before it returns, and if it throws, nothing is written at all. Files in
  /// `foundInFolders` that are not photos are reported as skipped, not failed, unless their
  /// name says they are photos (`ImageFormat.nameSaysPhoto`): those failed.
  ///
  /// `movingSources` removes the file of each photo the space then holds, added or
  /// duplicate, once its batch is committed and the space's copy has read back intact
  /// (`SourceRemoval`); files that failed, were skipped, or whose checks fail stay.
  @discardableResult
  public func importFiles(
    _ files: [String], skippingNonPhotos foundInFolders: Set<String> = [], movingSources: Bool = false,
    interruption: Interruption? = nil, unlocking unlock: () throws -> Space,
    report: (ImportEvent, Int) -> Void
  ) throws -> ImportSummary {
    let unlocked = UnlockedSpace()
    let pipeline = PreparationPipeline<String, PreparedImport>(
      items: files, limit: min(parallelism * 2, Self.maxInFlight), interruption: interruption,
      prepare: { [self] path in
        do {
          return .success(try prepare(path, unlocked: unlocked))
        } catch let error as VaultError {
          return .failure(error)
        } catch {
          return .failure(.io(path: path, reason: "\(error)"))
        }
      }, discard: { if case .photo(let photo) = $0 { photo.discard() } })
    defer { pipeline.finish() }
    let space: Space
    do {
      space = try unlock()
      precondition(space.access == .write, "imports need the space opened for writing")
      unlocked.open(space)
    } catch {
      unlocked.fail()
      throw error
    }
    var knownHashes = unlocked.knownHashes
    let removal = movingSources ? SourceRemoval(space: space) : nil

    var summary = ImportSummary()
    var done = 0
    var pendingEntries: [IndexEntry] = []
    var pendingEvents: [ImportEvent] = []
    /// Moving: the files of this batch's photos in the space, with their content hashes.
    var pendingSources: [(path: String, contentHash: String)] = []

    func flush() throws {
      if !pendingEntries.isEmpty {
        try space.commitImported(pendingEntries.map(\.record))
        removal?.noteCommitted(pendingEntries.map(\.record))
        pendingEntries.removeAll()
      }
      // Only now is every photo of the batch durable in the journal.
      var removals: [String: ImportEvent] = [:]
      if let removal {
        for source in pendingSources {
          do {
            try removal.remove(source.path, contentHash: source.contentHash)
            removals[source.path] = .sourceRemoved(path: source.path)
          } catch let error as VaultError {
            removals[source.path] = .sourceKept(path: source.path, reason: error)
          }
        }
        removal.syncFolders()
      }
      pendingSources.removeAll()
      func tallyAndReport(_ event: ImportEvent) {
        switch event {
        case .added:
          summary.added += 1
          done += 1
        case .duplicate:
          summary.duplicates += 1
          done += 1
        case .failed:
          summary.failed += 1
          done += 1
        case .skipped:
          summary.skipped += 1
          done += 1
        case .warning: summary.warnings += 1
        case .sourceRemoved: summary.sourcesRemoved += 1
        case .sourceKept: summary.sourcesKept += 1
        }
        report(event, done)
      }
      for event in pendingEvents {
        tallyAndReport(event)
        switch event {
        case .added(let path, _), .duplicate(let path, _):
          if let removed = removals[path] { tallyAndReport(removed) }
        default: break
        }
      }
      pendingEvents.removeAll()
    }

    for (position, path) in files.enumerated() {
      if interruption?.isRequested == true {
        summary.interrupted = true
        break
      }
      let next = try pipeline.result(at: position) {
        if !pendingEvents.isEmpty { try flush() }
      }
      guard let result = next else {
        summary.interrupted = true
        break
      }
      switch result {
      case .failure(let error):
        if case .unsupportedFormat = error, foundInFolders.contains(path), !ImageFormat.nameSaysPhoto(path) {
          pendingEvents.append(.skipped(path: path, reason: error))
        } else {
          pendingEvents.append(.failed(path: path, error: error))
        }
      case .success(.spaceNotOpened):
        preconditionFailure("files are prepared into a space only once it is open")
      case .success(.duplicate(let contentHash)):
        pendingEvents.append(.duplicate(path: path, contentHash: contentHash))
        if movingSources { pendingSources.append((path, contentHash)) }
      case .success(.photo(let photo)):
        if knownHashes.contains(photo.record.contentHash) {
          photo.discard()
          pendingEvents.append(.duplicate(path: path, contentHash: photo.record.contentHash))
          if movingSources { pendingSources.append((path, photo.record.contentHash)) }
          continue
        }
        do {
          try photo.moveIntoPlace(space: space)
        } catch let error as VaultError {
          photo.discard()
          pendingEvents.append(.failed(path: path, error: error))
          continue
        }
        knownHashes.insert(photo.record.contentHash)
        pendingEntries.append(IndexEntry(record: photo.record, selected: false))
        if let warning = photo.warning { pendingEvents.append(.warning(path: path, message: warning)) }
        pendingEvents.append(.added(path: path, record: photo.record))
        if movingSources { pendingSources.append((path, photo.record.contentHash)) }
        if pendingEntries.count >= Self.flushInterval { try flush() }
      }
    }
    try flush()
    return summary
  }

  /// The most photos committed between two index writes.
  static let flushInterval = 64

  /// Reads one file and writes its encrypted blobs under temporary names, unless it is a
  /// duplicate of a photo already in the space. Before the space is unlocked it makes the
  /// thumbnail first (that needs no key); after, it hashes first, so a duplicate costs one
  /// read and no decoding.
  ///
  /// The file is opened once, and everything comes from that descriptor. A file of up to
  /// `inMemoryFileLimit` is read once into memory, and hashed, decoded and encrypted from
  /// those very bytes. A larger one is not held whole: it is read once to hash it (the
  /// record holding the hash comes first in the blob, so the hash must be known before
  /// encrypting), decoded through the descriptor, and read again to encrypt it, hashed
  /// again only to prove that what is stored is what the record describes.
  private func prepare(_ path: String, unlocked: UnlockedSpace) throws -> PreparedImport {
    let source = try SourceFile(path: path)
    let signature = try source.readPrefix(ImageFormat.signatureLength)
    if source.size == 0 { throw VaultError.io(path: path, reason: "empty file") }
    let format = try ImageFormat.recognise(signature, path: path)
    // The header says what decoding will take (a photo that would need more than one photo
    // may use is refused here); the photo then waits until the photos in flight leave room
    // for it in the import's memory budget, so that their total stays bounded however many
    // run at once.
    var image = try thumbnailer.open(source, format: format)
    let keepsBytes =
      source.size <= Self.inMemoryFileLimit
      && Int(source.size) + image.memoryNeeded <= thumbnailer.memoryLimit
    let reserved = memory.reserve(image.memoryNeeded + (keepsBytes ? Int(source.size) : 0) + Self.photoMemory)
    defer { memory.release(reserved) }
    var bytes: PinnedBytes?
    if keepsBytes {
      let read = try source.readAll()
      let fromBytes = try thumbnailer.open(read, name: path, format: format)
      guard fromBytes.memoryNeeded <= image.memoryNeeded else {
        throw VaultError.io(path: path, reason: "file changed while it was being imported")
      }
      image = fromBytes
      bytes = read
    }
    var thumbnail: Thumbnail?
    if !unlocked.isOpen { thumbnail = try thumbnailer.makeThumbnail(image) }
    guard let (space, hashKey, knownHashes) = unlocked.wait() else { return .spaceNotOpened }
    let contentHash: String
    if let bytes {
      let hasher = ContentHasher(key: hashKey)
      hasher.update(UnsafeRawBufferPointer(bytes.buffer.extracting(0..<bytes.count)))
      contentHash = hasher.finish()
    } else {
      contentHash = try source.hash(key: hashKey) { _ in }
    }
    if knownHashes.contains(contentHash) { return .duplicate(contentHash: contentHash) }
    let made = try thumbnail ?? thumbnailer.makeThumbnail(image)
    let id = BlobID.random()
    let details = try PhotoDetailsReader.read(image, file: bytes, source: source)
    let record = details.applied(
      to: PhotoRecord(
        id: id, name: (path as NSString).lastPathComponent, bytes: source.size, format: format,
        width: made.width, height: made.height, orientation: made.orientation,
        modifiedAt: source.modifiedAt, importedAt: .now(), contentHash: contentHash))

    return .photo(
      try PreparedPhoto(
        record: record, thumbnail: made, in: space, source: path, flusher: flusher
      ) { photoWriter in
        if let bytes {
          try photoWriter.write(UnsafeRawBufferPointer(bytes.buffer.extracting(0..<bytes.count)))
        } else {
          let storedHash = try source.hash(key: hashKey) { try photoWriter.write($0) }
          guard storedHash == contentHash else {
            throw VaultError.io(path: path, reason: "file changed while it was being imported")
          }
        }
      })
  }
}

/// What preparing one file of an import gives.
enum PreparedImport {
  /// Its blobs, written under temporary names, to be moved into place.
  case photo(PreparedPhoto)
  /// The space already holds a photo with this content hash.
  case duplicate(contentHash: String)
  /// The space was never unlocked: the import stops without it.
  case spaceNotOpened
}

/// The space an import writes into, once it is unlocked, shared with the workers that
/// started before: they wait here for it (or for the news that it will not come).
final class UnlockedSpace {
  private let condition = NSCondition()
  private var space: Space?
  private var hashKey: SecureBytes?
  private(set) var knownHashes: Set<String> = []
  private var failed = false

  var isOpen: Bool {
    condition.lock()
    defer { condition.unlock() }
    return space != nil
  }

  func open(_ space: Space) {
    condition.lock()
    self.space = space
    hashKey = space.master.contentHashKey()
    knownHashes = Set(space.entries.map(\.record.contentHash))
    condition.broadcast()
    condition.unlock()
  }

  func fail() {
    condition.lock()
    failed = true
    condition.broadcast()
    condition.unlock()
  }

  /// The space, its content-hash key and the hashes it held when unlocked; nil if it could
  /// not be unlocked.
  func wait() -> (Space, SecureBytes, Set<String>)? {
    condition.lock()
    defer { condition.unlock() }
    while space == nil && !failed { condition.wait() }
    guard let space, let hashKey else { return nil }
    return (space, hashKey, knownHashes)
  }
}
