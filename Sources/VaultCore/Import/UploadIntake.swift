import Foundation

/// Stores photos and videos that arrive as bytes rather than files (vault serve), exactly as
/// `add` stores files: same recognition, duplicate check (`Space.listedPhoto`), record
/// (`DecodedImport`), thumbnail, blobs, commit (`ImportBatch`), memory budget
/// (`MemoryBudget`) and crash safety. Thread-safe. The space is opened to read, with its
/// lock released; every commit goes through `Space.change` (a short-lived writer holding
/// the lock only while it commits).
///
/// Memory: an upload's bytes are encrypted into a temporary blob as they arrive
/// (`StreamedOriginal`). A still (at most `maxUploadBytes`) is read back whole to be
/// decoded, so it reserves its length of `memoryBudget` before its bytes come; a video
/// (named so, at most `maxVideoBytes`) is read back by range and reserves only
/// `streamingShare`. Each upload is read in a decoder helper (`decoders`, a few at once),
/// under the helper's own memory limit.
public final class UploadIntake: @unchecked Sendable {
  /// The largest still (or file not named as a video) accepted.
  public let maxUploadBytes: Int
  /// The largest file named as a video (MP4, MOV, M4V) accepted.
  public let maxVideoBytes: Int
  /// Space is not thread-safe: every use of it holds `spaceLock`, which also makes commits
  /// one at a time.
  private let space: Space
  private let spaceLock = NSLock()
  private let hashKey: SecureBytes
  private let thumbnailer: Thumbnailer
  private let uploadMemory: MemoryBudget
  /// The decoder helpers that read uploads: a few, however many arrive at once.
  private let decoders: DecoderPool
  /// Commits every upload of the session, pairing their Live Photos, as `add` commits its
  /// files (guarded by `spaceLock`).
  private var batch: ImportBatch
  /// The uploads stored so far, and the catalog after the last: the items they made
  /// (guarded by `spaceLock`).
  private var stored: [PhotoRecord] = []
  private var catalogAfterLast: SpaceCatalog?

  /// 8 GiB: a long phone video in 4K.
  public static let defaultMaxVideoBytes = 8 << 30
  /// What a video upload reserves of the memory budget (at most all of it): its chunk
  /// buffers, the hasher's state and what the server holds of its body as it arrives.
  static let streamingShare = 1 << 20

  /// `space` must be opened to read; its lock is released here, if it was not already.
  public init(
    space: Space, maxUploadBytes: Int, maxVideoBytes: Int = defaultMaxVideoBytes,
    memoryBudget: Int = 256 << 20,
    thumbnailer: Thumbnailer = Thumbnailer(), decoderLimits: DecoderLimits = DecoderLimits()
  ) {
    precondition(space.access == .read, "the intake changes its space through Space.change")
    space.releaseLock()
    self.space = space
    self.maxUploadBytes = maxUploadBytes
    self.maxVideoBytes = maxVideoBytes
    self.thumbnailer = thumbnailer
    hashKey = space.master.contentHashKey()
    uploadMemory = MemoryBudget(total: memoryBudget)
    batch = ImportBatch(space: space, removal: nil)
    decoders = DecoderPool(size: Self.decoderCount, limits: decoderLimits)
  }

  /// The items the uploads stored so far made, as `list` counts them (a still and its MOV
  /// are one Live Photo), and the files they came from.
  public var itemsStored: (items: ItemCount, files: Int) {
    spaceLock.withLock { (catalogAfterLast?.newItems(madeOf: stored) ?? ItemCount(), stored.count) }
  }

  /// How many uploads are read at once: each helper may take `--decoder-memory`.
  static let decoderCount = min(2, max(1, ProcessInfo.processInfo.activeProcessorCount))

  /// The largest still held in memory: its bytes and, while its thumbnail is made, what
  /// decoding it takes.
  private var inMemoryLimit: Int { min(uploadMemory.total, thumbnailer.memoryLimit) }

  /// The name extensions of videos: a file named so may be as large as `maxVideoBytes`.
  static let videoNameExtensions: Set<String> = ["mp4", "m4v", "mov"]

  static func nameSaysVideo(_ name: String) -> Bool {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
    return videoNameExtensions.contains(name[name.index(after: dot)...].lowercased())
  }

  /// The size limit for a file of this name, and how a message says it ("200 MB", "8 GiB").
  public func sizeLimit(forName name: String) -> (bytes: Int, text: String) {
    let bytes = Self.nameSaysVideo(name) ? maxVideoBytes : maxUploadBytes
    return (bytes, describeSize(bytes))
  }

  /// Reserves the upload's share of the memory budget (its length for a still, as it is
  /// read back whole; `streamingShare` for a video), waiting (asynchronously, FIFO) while
  /// other uploads use it, at most `waitingAtMost` seconds, then starts its temporary
  /// blob. Throws `.uploadRefused` for a name that is not a plain file name, an empty
  /// file, a length above its limit (`sizeLimit(forName:)`) or, for a still, above what
  /// an upload may hold in memory; `.uploadsBusy` when the budget stays full;
  /// CancellationError when the task is cancelled while it waits.
  public func begin(
    name: String, length: Int, modifiedAt: Timestamp?, waitingAtMost seconds: Double = 60
  ) async throws -> PhotoUpload {
    let fileName = try Self.plainFileName(name)
    func refuse(_ reason: String) -> VaultError { .uploadRefused(name: fileName, reason: reason) }
    guard length > 0 else { throw refuse("empty file") }
    let limit = sizeLimit(forName: fileName)
    guard length <= limit.bytes else { throw refuse("larger than the \(limit.text) limit") }
    let video = Self.nameSaysVideo(fileName)
    guard video || length <= inMemoryLimit else {
      throw refuse("larger than the \(describeSize(inMemoryLimit)) an upload may take in memory")
    }
    let reserved = video ? min(length, Self.streamingShare, inMemoryLimit) : length
    try await uploadMemory.reserve(
      reserved, waitingAtMost: seconds, timeout: .uploadsBusy(name: fileName, seconds: seconds))
    let original: StreamedOriginal
    do {
      original = try spaceLock.withLock { try StreamedOriginal(in: space, name: fileName) }
    } catch {
      uploadMemory.release(reserved)
      throw PhotoUpload.diskFull(error, name: fileName)
    }
    return PhotoUpload(
      intake: self, name: fileName, length: length, reserved: reserved, modifiedAt: modifiedAt,
      hashKey: hashKey,
      original: original)
  }

  /// The most bytes of a name kept in a record (a file name's limit on Linux).
  static let nameLimit = 255

  /// The last component of `given` (a browser may send a path, with either slash), if it
  /// is a name export and the mount would keep as it is (`PathComponent`, on bytes): one
  /// they would change is refused, naming why.
  public static func plainFileName(_ given: String) throws -> String {
    let name = PathComponent.lastComponent(of: given, backslashes: true)
    func refuse(_ reason: String) -> VaultError { .uploadRefused(name: given, reason: reason) }
    if name.isEmpty { throw refuse("no file name") }
    if PathComponent.readsAsDots(name) { throw refuse("not a file name") }
    // Controls, and the direction controls that show `gpj.exe` as `exe.jpg`.
    if name.unicodeScalars.contains(where: PathComponent.isReplaced) {
      throw refuse("its name holds control characters")
    }
    if name.utf8.count > nameLimit { throw refuse("its name is longer than \(nameLimit) bytes") }
    return name
  }

  /// The uploads waiting in `begin` for memory that others hold.
  var uploadsWaiting: Int { uploadMemory.waitingCount }

  /// Gives back what an upload reserved at `begin`.
  func release(_ length: Int) {
    uploadMemory.release(length)
  }

  /// Stores a whole upload (see `PhotoUpload.finish`); `readableWhole` says whether it
  /// reserved the memory to be read back whole, as a still is.
  func store(
    _ original: StreamedOriginal, contentHash: String, name: String, modifiedAt: Timestamp?,
    readableWhole: Bool
  ) throws -> UploadOutcome {
    // A duplicate costs no decoding.
    if try isStored(contentHash) { return .duplicate(of: duplicatedItem(contentHash)) }
    let format: ImageFormat
    let decoded: DecodedImport
    do {
      (format, decoded) = try readBack(original, name: name, readableWhole: readableWhole)
    } catch let error as VaultError {
      guard let problem = error.uploadProblem else { throw error }
      throw VaultError.uploadRefused(name: name, reason: problem)
    }
    let record = decoded.record(
      id: original.id, name: name, bytes: Int64(original.size), format: format,
      modifiedAt: modifiedAt ?? .now(), contentHash: contentHash)
    return try spaceLock.withLock {
      try space.change { writer in
        let photo = try PreparedPhoto(record: record, decoded: decoded, in: writer.blobs, streamed: original)
        // Another command, or another upload, may have stored it since: the batch checks.
        batch.space = writer
        // The writer's lock goes when it does: the batch must not keep it.
        defer { batch.space = space }
        // A plain name has no folder: every upload of the session is one place, where a
        // still and a MOV of one stem pair.
        try batch.take(.success(.photo(photo)), of: name)
        try batch.commit()
        let outcome = try outcome(of: record)
        if case .added(let added) = outcome { stored.append(added) }
        catalogAfterLast = writer.catalog
        return outcome
      }
    }
  }

  /// What the batch reports of the upload `record` it committed (or found a duplicate).
  private func outcome(of record: PhotoRecord) throws -> UploadOutcome {
    var summary = ImportSummary()
    var outcome = UploadOutcome.duplicate(of: nil)
    var failure: VaultError?
    try batch.report(into: &summary) { event, _ in
      switch event {
      case .added(_, let added) where added.id == record.id: outcome = .added(added)
      case .failed(_, let error): failure = error
      default: break
      }
    }
    if let failure { throw failure }
    if case .duplicate = outcome { return .duplicate(of: duplicatedItem(record.contentHash)) }
    return outcome
  }

  /// The item an upload of this content duplicates, as `list` shows it now.
  private func duplicatedItem(_ contentHash: String) -> DuplicatedItem? {
    DuplicatedItem(contentHash: contentHash, in: space, browser: space.makeBrowser())
  }

  /// Why an upload under a video's name must stop as soon as its first bytes are in: they
  /// are no video's (a photo would be read back whole into memory it did not reserve), so
  /// up to `maxVideoBytes` of it are not worth receiving. Nil for anything else, which
  /// `store` recognises once it is complete.
  func refusalFromSignature(of original: StreamedOriginal, readableWhole: Bool) -> String? {
    guard !readableWhole else { return nil }
    var signature = [UInt8](repeating: 0, count: min(original.size, ImageFormat.signatureLength))
    guard (try? signature.withUnsafeMutableBytes({ try original.read(at: 0, into: $0) })) != nil else {
      return nil
    }
    do {
      let format = try ImageFormat.recognise(signature, path: original.name)
      return format.isVideo ? nil : Self.photoUnderVideoName(format)
    } catch {
      return (error as? VaultError)?.uploadProblem
    }
  }

  static func photoUnderVideoName(_ format: ImageFormat) -> String {
    "it is a \(format.displayName) photo, not the video its name says"
  }

  /// Recognises the upload from its temporary blob's first bytes, then has a decoder
  /// helper make its thumbnail and read its details: a video by range from the blob, a
  /// still from its bytes read back whole into memory (which it reserved, unless it came
  /// under a video's name).
  private func readBack(_ original: StreamedOriginal, name: String, readableWhole: Bool) throws -> (
    ImageFormat, DecodedImport
  ) {
    var signature = [UInt8](repeating: 0, count: min(original.size, ImageFormat.signatureLength))
    _ = try signature.withUnsafeMutableBytes { try original.read(at: 0, into: $0) }
    let format = try ImageFormat.recognise(signature, path: name)
    let bytes: PinnedBytes?
    if format.isVideo {
      bytes = nil
    } else {
      guard readableWhole else {
        throw VaultError.uploadRefused(name: name, reason: Self.photoUnderVideoName(format))
      }
      bytes = try original.readWhole()
    }
    defer { bytes?.wipe() }
    let input =
      bytes.map { DecoderInput.bytes($0) }
      ?? .ranges(size: Int64(original.size), read: { try original.read(at: Int($0), into: $1) })
    let decoded = try DecodedImport.read(
      input, format: format, name: name, size: Int64(original.size), decoders: decoders,
      thumbnailer: thumbnailer)
    return (format, decoded)
  }

  /// Whether the space holds a photo with this hash. What the space read last says no
  /// for most uploads at no cost; a yes is read again, as another command may have deleted
  /// the photo since.
  private func isStored(_ contentHash: String) throws -> Bool {
    try spaceLock.withLock {
      func holds() -> Bool { space.listedPhoto(withContentHash: contentHash) != nil }
      guard holds() else { return false }
      try space.reload()
      return holds()
    }
  }
}

/// A size limit for a message: whole MB (10⁶ bytes), whole GiB, whole MiB, or bytes.
func describeSize(_ bytes: Int) -> String {
  if bytes >= 1_000_000 && bytes % 1_000_000 == 0 { return "\(bytes / 1_000_000) MB" }
  if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
  if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
  return "\(bytes) bytes"
}
