import Foundation

/// Imports files into a space: each file is read, recognised by content, hashed, turned
/// into a thumbnail and encrypted on all cores, a few at a time; photos become visible
/// when the index listing them is written. A file that fails leaves nothing behind.
public final class PhotoImporter: Sendable {
  private let thumbnailer: Thumbnailer
  private let parallelism: Int
  /// Memory shared by the photos being prepared at once, whatever the number of cores.
  private let memory: MemoryBudget
  private let flusher = BackgroundFlusher()
  /// The decoder helpers, one a core: every file is read there, never in this process.
  private let decoders: DecoderPool

  /// The memory all photos in flight may use together in this process (docs/LIMITS.md:
  /// with the rest of the process, an import stays under 512 MiB besides the key
  /// derivation); each decoder helper has a limit of its own.
  public static let memoryBudget = 384 << 20
  /// Files up to this size are read once into sealed memory, and hashed, encrypted and
  /// decoded from those bytes; larger ones are read twice through their descriptor.
  static let inMemoryFileLimit = 64 << 20
  /// The most photos prepared at once, however many cores.
  static let maxInFlight = 32
  /// What preparing any photo takes besides its decoding and its bytes: read and
  /// encryption buffers, the thumbnail.
  static let photoMemory = 1 << 20

  public init(
    thumbnailer: Thumbnailer = Thumbnailer(), parallelism: Int? = nil,
    decoderLimits: DecoderLimits = DecoderLimits()
  ) {
    self.thumbnailer = thumbnailer
    self.parallelism = max(1, parallelism ?? ProcessInfo.processInfo.activeProcessorCount)
    memory = MemoryBudget(total: Self.memoryBudget)
    decoders = DecoderPool(size: self.parallelism, limits: decoderLimits)
  }

  /// Imports `files`, calling `report` for each on the calling thread, in order, with the
  /// number of files done so far. Throws only when the space itself cannot be written; the
  /// photos reported as added before that stay imported.
  ///
  /// Files are prepared (read, hashed, thumbnailed, encrypted under temporary names) on
  /// all cores, at most `2 × parallelism` (and `maxInFlight`) at a time, and committed here
  /// in order. The index is written whenever the next file is not ready yet, or every
  /// `ImportBatch.limit` photos, and a photo is reported as added only once an index listing it
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

  /// Imports `files` into the space that `unlock` opens (for writing). While `unlock` runs
  /// its key derivation here, the files are opened and recognised, no more: nothing is
  /// decoded and nothing is written before it returns, and if it throws, nothing is written
  /// at all. Files in `foundInFolders` that are not photos are reported as skipped, not
  /// failed, unless their name says they are photos (`ImageFormat.nameSaysPhoto`): those
  /// failed.
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
    let space = try Self.open(unlocked, with: unlock)
    var batch = ImportBatch(
      space: space, removal: movingSources ? SourceRemoval(space: space) : nil, files: files)
    var summary = ImportSummary()
    func flush() throws {
      // Workers look for their files' contents in the list a commit changes.
      try unlocked.committing({ try batch.commit() }, publishing: { space.catalog })
      try batch.report(into: &summary, report: report)
    }
    for (position, path) in files.enumerated() {
      if interruption?.isRequested == true {
        summary.interrupted = true
        break
      }
      let next = try pipeline.result(at: position) {
        if !batch.isEmpty { try flush() }
      }
      guard let result = next else {
        summary.interrupted = true
        break
      }
      try batch.take(result, of: path, skippingNonPhoto: foundInFolders.contains(path))
      if batch.count >= ImportBatch.limit { try flush() }
    }
    try flush()
    batch.keepHeldSources(into: &summary, report: report)
    return summary
  }

  /// Opens the space with `unlock` and hands it to the workers waiting in `unlocked`; if
  /// it cannot be opened, tells them so (they stop), and throws.
  private static func open(_ unlocked: UnlockedSpace, with unlock: () throws -> Space) throws -> Space {
    do {
      let space = try unlock()
      precondition(space.access == .write, "imports need the space opened for writing")
      unlocked.open(space)
      return space
    } catch {
      unlocked.fail()
      throw error
    }
  }

  /// Reads one file and writes its encrypted blobs under temporary names, unless it is a
  /// duplicate of a photo already in the space. Only the file's signature is read before the
  /// space is unlocked: the key derivation holds 64 MiB or more meanwhile, and a helper
  /// started beside it (its ~170 libraries mapped, ~20 MB) and its first file would add
  /// their memory to the import's peak. It hashes first, so a duplicate costs one read and
  /// no decoding.
  ///
  /// The file is opened once, and everything comes from that descriptor. A file of up to
  /// `inMemoryFileLimit` is read once into sealed memory (`SealedFileCopy`), hashed and
  /// encrypted from it, and the helper decodes it there. A larger one is not held whole:
  /// the helper gets the descriptor and reads what it needs (a JPEG streamed once, a
  /// video's header and one keyframe); it is read once to hash it (so that a duplicate
  /// costs a read, not the writing of a blob to be thrown away), read again to encrypt it,
  /// hashed again to prove that what is stored is what the record describes, and refused if
  /// its size or times show a write since it was opened (`SourceFile.checkUnchanged`).
  private func prepare(_ path: String, unlocked: UnlockedSpace) throws -> PreparedImport {
    let source = try SourceFile(path: path)
    let signature = try source.readPrefix(ImageFormat.signatureLength)
    if source.size == 0 { throw VaultError.io(path: path, reason: "empty file") }
    let format = try ImageFormat.recognise(signature, path: path)
    guard let blobs = unlocked.wait() else { return .spaceNotOpened }
    // The bytes held wait until the photos in flight leave room for them in the import's
    // memory budget; decoding takes the helpers' memory, under their own limit.
    let keepsBytes = Self.holdsWhole(source)
    let reserved = memory.reserve((keepsBytes ? Int(source.size) : 0) + Self.photoMemory)
    defer { memory.release(reserved) }
    let (copy, input) = try Self.hold(source)
    let hashKey = blobs.master.contentHashKey()
    let contentHash: String
    if let copy {
      let hasher = ContentHasher(key: hashKey)
      hasher.update(copy.bytes)
      contentHash = hasher.finish()
    } else {
      contentHash = try source.hash(key: hashKey) { _ in }
    }
    if unlocked.holds(contentHash) { return .duplicate(contentHash: contentHash) }
    let photo = try DecodedImport.read(
      input, format: format, name: path, size: source.size, decoders: decoders, thumbnailer: thumbnailer)
    // A file over `inMemoryFileLimit` the helper read itself: refused if a write shows.
    try source.checkUnchanged()
    let record = photo.record(
      id: .random(), name: (path as NSString).lastPathComponent, bytes: source.size, format: format,
      modifiedAt: source.modifiedAt, contentHash: contentHash)
    return .photo(
      try PreparedPhoto(
        record: record, decoded: photo, in: blobs, source: path, flusher: flusher
      ) { photoWriter in
        if let copy {
          try photoWriter.write(copy.bytes)
        } else {
          let storedHash = try source.hash(key: hashKey) { try photoWriter.write($0) }
          guard storedHash == contentHash else {
            throw VaultError.io(path: path, reason: "file changed while it was being imported")
          }
        }
      })
  }

  /// Whether `prepare` holds the file whole in memory.
  private static func holdsWhole(_ source: SourceFile) -> Bool {
    source.size <= inMemoryFileLimit
  }

  /// What `prepare` holds of `source`, and what its decoder helper reads. The helper
  /// decodes the very bytes hashed and stored when they are held (their sealed memory's
  /// descriptor): a file read a second time through its own descriptor can give other bytes
  /// (a write through a shared mapping changes no time stamp; a FUSE or network file system
  /// may answer each reader differently), and the thumbnail and record would be of another
  /// picture. A larger file goes by its descriptor (`SourceFile.checkUnchanged` then).
  static func hold(_ source: SourceFile) throws -> (held: SealedFileCopy?, input: DecoderInput) {
    guard holdsWhole(source) else { return (nil, .file(source)) }
    do {
      let copy = try SealedFileCopy(reading: source)
      return (copy, .sealed(copy))
    } catch is SealedFileCopy.BeyondFileSizeLimit {
      // Its blob, larger still, cannot be written either: it fails there, naming the vault's
      // limit ("cannot store it in the vault: File too large"), and nothing decoded is kept.
      return (nil, .file(source))
    }
  }
}
