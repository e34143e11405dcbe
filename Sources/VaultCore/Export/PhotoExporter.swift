import Foundation

/// What happened to one photo of an export.
public enum ExportEvent: Sendable {
  /// The file is complete, verified and under its final name.
  case exported(name: String, path: String)
  /// Nothing was left behind for this photo.
  case failed(name: String, error: VaultError)
}

/// Decrypts originals (or thumbnails) into a folder, on all cores, through a browser's
/// loaders (so that it writes exactly what the data source gives). Each file is written
/// without a name (or under a temporary one), checked to the final chunk and its content
/// hash, flushed to disk, and only then given its name: the one it shows under in the mount
/// (`ShownNames`; for a thumbnail, that name's stem with `.jpg`); a name a file in the folder
/// already has gets " (1)", " (2)"… in the photos' order; nothing is ever overwritten.
public final class PhotoExporter: Sendable {
  private let thumbnail: @Sendable (PhotoRecord) throws -> [UInt8]
  private let original:
    @Sendable (PhotoRecord, _ content: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
  private let parallelism: Int
  /// The names the files show under, as the browser's catalog gave them when made.
  private let shownNames: [BlobID: String]
  /// Photos decrypted ahead of the one being named, at most (each holds an open file, and
  /// one 64 KiB chunk at a time while it is written).
  static let maxInFlight = 32

  /// Exports through `browser`'s loaders, which its workers call from their threads.
  public init(browser: PhotoBrowser, parallelism: Int? = nil) {
    thumbnail = browser.dataSource.thumbnail
    original = browser.dataSource.original
    shownNames = browser.dataSource.shownNames()
    self.parallelism = max(1, parallelism ?? ProcessInfo.processInfo.activeProcessorCount)
  }

  /// Exports `photos` into `directory` (which must exist), reporting each in order once its
  /// file and name are on disk. Returns the number exported, and whether `interruption`
  /// stopped the export before the last photo (the files already taken from the workers
  /// are named first, those still in the workers' hands are discarded, and photos not
  /// reached are not reported).
  ///
  /// Workers decrypt and check photos into unnamed files in parallel; here, in the photos'
  /// order, the files ready so far are flushed (one `fsync` each), linked under their
  /// names, and the folder is flushed once for the whole batch, while the workers go on.
  @discardableResult
  public func export(
    _ photos: [PhotoModel], to directory: String, thumbnails: Bool, interruption: Interruption? = nil,
    report: (ExportEvent) -> Void
  ) -> (exported: Int, interrupted: Bool) {
    // A Live Photo's MOV is written after its still, under its own name.
    let records = thumbnails ? photos.map(\.record) : Self.originals(of: photos)
    let pipeline = PreparationPipeline<PhotoRecord, TemporaryFile>(
      items: records, limit: min(parallelism * 2, Self.maxInFlight), interruption: interruption,
      prepare: { [self] record in
        do {
          return .success(try write(record, into: directory, thumbnails: thumbnails))
        } catch let error as VaultError {
          return .failure(error)
        } catch {
          return .failure(.io(path: directory, reason: "\(error)"))
        }
      }, discard: { $0.discard() })
    defer { pipeline.finish() }
    var batch = Batch(directory: directory)
    var exported = 0
    func flush() {
      exported += batch.flush(report: report)
    }
    for (position, record) in records.enumerated() {
      if interruption?.isRequested == true {
        flush()
        return (exported, true)
      }
      // While the next photo is still being decrypted, the ones before it are named.
      guard let outcome = pipeline.result(at: position, whileWaiting: flush) else {
        flush()
        return (exported, true)
      }
      batch.append(record: record, name: exportName(record, thumbnails: thumbnails), outcome)
      if batch.count >= Batch.limit { flush() }
    }
    flush()
    return (exported, false)
  }

  /// Writes one photo into an unnamed file in `directory`, checked to its last chunk and
  /// content hash, with its modification time; runs on a worker.
  private func write(_ record: PhotoRecord, into directory: String, thumbnails: Bool) throws -> TemporaryFile
  {
    // Unnamed until complete: an export that is killed leaves nothing in the folder.
    let file = try TemporaryFile(in: directory, unnamed: true)
    if thumbnails {
      var bytes = try thumbnail(record)
      defer { bytes.wipe() }
      try file.write(bytes)
    } else {
      try original(record) { try file.write($0) }
    }
    try file.setModificationTime(
      seconds: record.modifiedAt.seconds, nanoseconds: record.modifiedAt.nanoseconds)
    // The disk starts on it now, while other photos are decrypted; the fsync before the
    // file is named then mostly waits for writes already done.
    file.startWriteback()
    return file
  }

  /// The name a file is exported under: the one it shows in the mount (a thumbnail: its
  /// stem with `.jpg`); and the name its numbered forms start from when a file in the folder
  /// has that one (its own name made safe, so that `IMG (1).png` taken gives `IMG (2).png`).
  private func exportName(_ record: PhotoRecord, thumbnails: Bool) -> ExportName {
    let own = Self.safeName(record.name)
    let shown = shownNames[record.id] ?? own
    guard thumbnails else { return ExportName(shown: shown, base: own) }
    return ExportName(
      shown: Self.safeName(PathComponent.stem(of: shown) + ".jpg"),
      base: Self.safeName(PathComponent.stem(of: own) + ".jpg"))
  }

  /// A file's name in an export, and what it is numbered from when it is taken.
  private struct ExportName {
    let shown: String
    let base: String

    /// The shown name, then the base's numbered forms.
    func candidate(_ attempt: Int) -> String {
      attempt == 0 ? shown : PathComponent.numbered(base, attempt)
    }
  }

  /// Complete files waiting for their names, in the photos' order, and the photos that
  /// failed among them.
  private struct Batch {
    /// Files named per flush of the folder, at most.
    static let limit = 64

    let directory: String
    private var entries:
      [(record: PhotoRecord, name: ExportName, outcome: Result<TemporaryFile, VaultError>)] =
        []

    init(directory: String) {
      self.directory = directory
    }

    var count: Int { entries.count }

    mutating func append(record: PhotoRecord, name: ExportName, _ outcome: Result<TemporaryFile, VaultError>)
    {
      entries.append((record, name, outcome))
    }

    /// Flushes each file, names them in order, flushes the folder once, then reports them
    /// in order; returns how many were exported. A file is named only after its contents
    /// are on disk, so a crash at any point leaves named files complete; a photo is
    /// reported only once its name is on disk too.
    mutating func flush(report: (ExportEvent) -> Void) -> Int {
      guard !entries.isEmpty else { return 0 }
      defer { entries.removeAll() }
      var named: [(record: PhotoRecord, result: Result<String, VaultError>)] = []
      for (record, name, outcome) in entries {
        named.append(
          (
            record,
            outcome.flatMap { file in
              Result { try Self.name(file, name, in: directory) }.mapError { error in
                file.discard()
                return error as? VaultError ?? .io(path: directory, reason: "\(error)")
              }
            }
          ))
      }
      if named.contains(where: { (try? $0.result.get()) != nil }) {
        do {
          try syncDirectory(directory)
        } catch {
          // The names may not last: take them back, so that nothing is reported that a
          // crash could lose.
          let failure = error as? VaultError ?? .io(path: directory, reason: "\(error)")
          for index in named.indices {
            guard case .success(let path) = named[index].result else { continue }
            unlink(path)
            named[index].result = .failure(failure)
          }
        }
      }
      var exported = 0
      for (record, result) in named {
        switch result {
        case .success(let path):
          exported += 1
          report(.exported(name: record.name, path: path))
        case .failure(let error):
          report(.failed(name: record.name, error: error))
        }
      }
      return exported
    }

    /// Syncs the file and links it under `name`, or the first free numbered name.
    private static func name(_ file: TemporaryFile, _ name: ExportName, in directory: String) throws -> String
    {
      for attempt in 0... {
        let candidate = directory + "/" + name.candidate(attempt)
        if try file.moveWithoutReplacing(to: candidate) { return candidate }
      }
      fatalError("unreachable")
    }
  }

  /// A record's name as a file name in the target folder (see `PathComponent`).
  static func safeName(_ name: String) -> String {
    PathComponent.safe(name, fallback: "photo")
  }
}
