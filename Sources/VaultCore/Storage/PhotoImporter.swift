import CSodium
import Foundation

/// What happened to one file of an import, reported in the order the files were given.
public enum ImportEvent: Sendable {
  /// The photo is stored and listed; reported only once the index holding it is on disk.
  case added(path: String, record: PhotoRecord)
  /// The space already holds a photo with the same content.
  case duplicate(path: String)
  /// The file was not imported.
  case failed(path: String, error: VaultError)
  /// The photo was imported, but its decoder complained (e.g. premature end of data).
  case warning(path: String, message: String)
}

/// Totals of an import.
public struct ImportSummary: Equatable, Sendable {
  public var added = 0
  public var duplicates = 0
  public var failed = 0
  public var warnings = 0
  /// The import stopped early at a request (the files not reached are not reported).
  public var interrupted = false
}

/// Imports files into a space: each file is read, recognised by content, hashed, turned
/// into a thumbnail and encrypted on all cores, a few at a time; photos become visible
/// when the index listing them is written. A file that fails leaves nothing behind.
public final class PhotoImporter {
  private let thumbnailer: Thumbnailer
  private let parallelism: Int

  public init(thumbnailer: Thumbnailer = Thumbnailer(), parallelism: Int? = nil) {
    self.thumbnailer = thumbnailer
    self.parallelism = max(1, parallelism ?? ProcessInfo.processInfo.activeProcessorCount)
  }

  /// Expands folders (recursively, skipping hidden entries and not following linked
  /// folders) into a sorted list of files; paths that cannot be read come back as failures.
  public static func collectFiles(_ paths: [String]) -> (files: [String], failures: [ImportEvent]) {
    var files: [String] = []
    var failures: [ImportEvent] = []
    var seen = Set<String>()
    func add(_ path: String) {
      let key = (path as NSString).standardizingPath
      if seen.insert(key).inserted { files.append(path) }
    }
    func walk(_ folder: String) {
      let names: [String]
      do {
        names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
      } catch {
        failures.append(.failed(path: folder, error: .io(path: folder, reason: "cannot read folder")))
        return
      }
      for name in names where !name.hasPrefix(".") {
        let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        var info = stat()
        guard lstat(path, &info) == 0 else { continue }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: walk(path)
        case S_IFREG: add(path)
        case S_IFLNK:
          var target = stat()
          if stat(path, &target) == 0 && (target.st_mode & S_IFMT) == S_IFREG { add(path) }
        default: continue
        }
      }
    }
    for path in paths {
      var info = stat()
      guard stat(path, &info) == 0 else {
        failures.append(.failed(path: path, error: .posix(path)))
        continue
      }
      switch info.st_mode & S_IFMT {
      case S_IFDIR: walk(path)
      case S_IFREG: add(path)
      default: failures.append(.failed(path: path, error: .io(path: path, reason: "not a regular file")))
      }
    }
    return (files, failures)
  }

  /// Imports `files`, calling `report` for each on the calling thread, in order, with the
  /// number of files done so far. Throws only when the space itself cannot be written; the
  /// photos reported as added before that stay imported.
  ///
  /// Files are prepared (read, hashed, thumbnailed, encrypted under temporary names) on
  /// all cores, at most `2 × parallelism` at a time, and committed here in order. The index
  /// is written whenever the next file is not ready yet, or every `flushInterval` photos,
  /// and a photo is reported as added only once an index listing it is on disk.
  ///
  /// Once `interruption` is requested, no new file is started; the photos already moved
  /// into place are committed and reported, those prepared but not committed are discarded,
  /// and the summary says `interrupted`.
  @discardableResult
  public func importFiles(
    _ files: [String], into space: Space, interruption: Interruption? = nil,
    report: (ImportEvent, Int) -> Void
  ) throws -> ImportSummary {
    try importFiles(files, unlocking: { space }, interruption: interruption, report: report)
  }

  /// Imports `files` into the space that `unlock` opens (for writing). Decoding starts at
  /// once, on the other cores, while `unlock` runs its key derivation here; nothing is
  /// written before it returns, and if it throws, nothing is written at all.
  @discardableResult
  public func importFiles(
    _ files: [String], unlocking unlock: () throws -> Space, interruption: Interruption? = nil,
    report: (ImportEvent, Int) -> Void
  ) throws -> ImportSummary {
    let unlocked = UnlockedSpace()
    let pipeline = PreparationPipeline(files: files, limit: parallelism * 2, interruption: interruption) {
      [self] path in
      do {
        return .success(try prepare(path, unlocked: unlocked))
      } catch let error as VaultError {
        return .failure(error)
      } catch {
        return .failure(.io(path: path, reason: "\(error)"))
      }
    }
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

    var summary = ImportSummary()
    var done = 0
    var pendingEntries: [IndexEntry] = []
    var pendingEvents: [ImportEvent] = []

    func flush() throws {
      if !pendingEntries.isEmpty {
        do {
          try syncDirectory(space.photoDirectory)
          try syncDirectory(space.thumbDirectory)
          try space.saveEntries(space.entries + pendingEntries)
        } catch {
          // Not listed, so not imported: take the blobs back out.
          for entry in pendingEntries {
            unlink(space.photoPath(entry.record.id))
            unlink(space.thumbPath(entry.record.id))
          }
          throw error
        }
        pendingEntries.removeAll()
      }
      for event in pendingEvents {
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
        case .warning: summary.warnings += 1
        }
        report(event, done)
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
        pendingEvents.append(.failed(path: path, error: error))
      case .success(nil):
        pendingEvents.append(.duplicate(path: path))
      case .success(let photo?):
        if knownHashes.contains(photo.record.contentHash) {
          photo.discard()
          pendingEvents.append(.duplicate(path: path))
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
        if pendingEntries.count >= Self.flushInterval { try flush() }
      }
    }
    try flush()
    return summary
  }

  /// The most photos committed between two index writes.
  static let flushInterval = 64

  /// Reads one file and writes its encrypted blobs under temporary names; returns nil for a
  /// duplicate of a photo already in the space. Before the space is unlocked it makes the
  /// thumbnail first (that needs no key); after, it hashes first, so a duplicate costs one
  /// read and no decoding.
  private func prepare(_ path: String, unlocked: UnlockedSpace) throws -> PreparedPhoto? {
    let source = try SourceFile(path: path)
    let signature = try source.readPrefix(ImageFormat.signatureLength)
    if source.size == 0 { throw VaultError.io(path: path, reason: "empty file") }
    guard let format = ImageFormat.sniff(signature) else { throw VaultError.unsupportedFormat(path: path) }
    var thumbnail: Thumbnail?
    if !unlocked.isOpen { thumbnail = try thumbnailer.makeThumbnail(path: path, format: format) }
    guard let (space, hashKey, knownHashes) = unlocked.wait() else { return nil }
    let contentHash = try source.hash(key: hashKey) { _ in }
    if knownHashes.contains(contentHash) { return nil }
    let made = try thumbnail ?? thumbnailer.makeThumbnail(path: path, format: format)
    let id = BlobID.random()
    let record = PhotoRecord(
      id: id.hex, name: (path as NSString).lastPathComponent, bytes: source.size, format: format,
      width: made.width, height: made.height, orientation: made.orientation,
      modifiedAt: source.modifiedAt, importedAt: .now(), contentHash: contentHash)

    do {
      let photoFile = try TemporaryFile(in: space.photoDirectory)
      let photoWriter = try BlobWriter(
        kind: .original, key: space.master.blobKey(kind: .original, id: id), output: photoFile)
      let header = try OriginalBlob.header(for: record)
      try photoWriter.write(header)
      // Hashed again while encrypting: what is stored is exactly what the record describes,
      // even if the file changed after the first read.
      let storedHash = try source.hash(key: hashKey) { try photoWriter.write($0) }
      guard storedHash == contentHash, photoWriter.plaintextLength == header.count + Int(source.size) else {
        throw VaultError.io(path: path, reason: "file changed while it was being imported")
      }
      try photoWriter.finish()
      try photoFile.sync()

      let thumbFile = try space.sealThumbnail(made.jpeg, id: id)
      return PreparedPhoto(record: record, photoFile: photoFile, thumbFile: thumbFile, warning: made.warning)
    } catch VaultError.io(let folder, let reason) where folder.hasPrefix(space.directory) {
      // Name the photo, not the vault folder the write failed in.
      throw VaultError.io(path: path, reason: "cannot store it in the vault: \(reason)")
    }
  }
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

/// A photo whose blobs are written under temporary names, waiting to be committed.
final class PreparedPhoto {
  let record: PhotoRecord
  let photoFile: TemporaryFile
  let thumbFile: TemporaryFile
  let warning: String?

  init(record: PhotoRecord, photoFile: TemporaryFile, thumbFile: TemporaryFile, warning: String?) {
    self.record = record
    self.photoFile = photoFile
    self.thumbFile = thumbFile
    self.warning = warning
  }

  /// Renames both blobs to their final names (the caller syncs the folders).
  func moveIntoPlace(space: Space) throws {
    try thumbFile.replace(space.thumbPath(record.id), syncFolder: false)
    try photoFile.replace(space.photoPath(record.id), syncFolder: false)
  }

  func discard() {
    photoFile.discard()
    thumbFile.discard()
  }
}

/// A file being imported, opened once and read from the start as often as needed.
final class SourceFile {
  let path: String
  let size: Int64
  let modifiedAt: Timestamp
  private let descriptor: Int32

  init(path: String) throws {
    self.path = path
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw VaultError.posix(path) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      let error = VaultError.posix(path)
      close(descriptor)
      throw error
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      throw VaultError.io(path: path, reason: "not a regular file")
    }
    size = Int64(info.st_size)
    modifiedAt = Timestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int32(info.st_mtim.tv_nsec))
  }

  deinit {
    close(descriptor)
  }

  func readPrefix(_ count: Int) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: count)
    let read = pread(descriptor, &buffer, count, 0)
    guard read >= 0 else { throw VaultError.posix(path) }
    return Array(buffer[0..<read])
  }

  /// Reads the whole file from the start in 64 KiB pieces, handing each to `consume`;
  /// returns the keyed content hash.
  func hash(key: SecureBytes, consume: (UnsafeRawBufferPointer) throws -> Void) throws -> String {
    let hasher = ContentHasher(key: key)
    var buffer = [UInt8](repeating: 0, count: 65536)
    defer { buffer.wipe() }
    var offset: off_t = 0
    while true {
      let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
      if count < 0 {
        if errno == EINTR { continue }
        throw VaultError.posix(path)
      }
      if count == 0 { break }
      try buffer.withUnsafeBytes { bytes in
        let piece = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
        hasher.update(piece)
        try consume(piece)
      }
      offset += off_t(count)
    }
    return hasher.finish()
  }
}
