import Foundation

/// Stores photos that arrive as bytes rather than files (vault serve), exactly as `add`
/// stores files: same recognition, dedupe, record, thumbnail, blobs and crash safety.
/// Thread-safe. The space is opened to read, with its lock released; every commit goes
/// through `Space.change` (a short-lived writer holding the lock only while it commits).
///
/// Memory: an upload's bytes are held whole (the thumbnail is made from them; the blob
/// format would let them be encrypted as they arrive, its record written last); together they
/// stay within `memoryBudget`, and the decodes running at once within the thumbnailer's
/// `memoryLimit`.
public final class UploadIntake: @unchecked Sendable {
  public let maxUploadBytes: Int
  /// Space is not thread-safe: every use of it holds `spaceLock`, which also makes commits
  /// one at a time.
  private let space: Space
  private let spaceLock = NSLock()
  private let hashKey: SecureBytes
  private let thumbnailer: Thumbnailer
  private let uploadMemory: UploadMemoryBudget
  /// Shared by the decodes running at once, on however many threads `finish` is called.
  private let decodeMemory: MemoryBudget
  /// Live Photos among this session's uploads (guarded by `spaceLock`).
  private var livePairing = LivePairing()

  /// `space` must be opened to read; its lock is released here, if it was not already.
  public init(
    space: Space, maxUploadBytes: Int, memoryBudget: Int = 256 << 20, thumbnailer: Thumbnailer = Thumbnailer()
  ) {
    precondition(space.access == .read, "the intake changes its space through Space.change")
    space.releaseLock()
    self.space = space
    self.maxUploadBytes = maxUploadBytes
    self.thumbnailer = thumbnailer
    hashKey = space.master.contentHashKey()
    uploadMemory = UploadMemoryBudget(total: memoryBudget)
    decodeMemory = MemoryBudget(total: thumbnailer.memoryLimit)
  }

  /// The largest upload held in memory: its bytes and, while its thumbnail is made, what
  /// decoding it takes.
  private var inMemoryLimit: Int { min(uploadMemory.total, thumbnailer.memoryLimit) }

  /// Reserves `length` bytes of the memory budget, waiting (asynchronously, FIFO) while
  /// other uploads use it, at most `waitingAtMost` seconds. Throws `.uploadRefused` for a
  /// name that is not a plain file name, an empty file, or a length above `maxUploadBytes`
  /// or above what an upload may hold in memory; `.uploadsBusy` when the budget stays
  /// full; CancellationError when the task is cancelled while it waits.
  public func begin(
    name: String, length: Int, modifiedAt: Timestamp?, waitingAtMost seconds: Double = 60
  ) async throws -> PhotoUpload {
    let fileName = try Self.plainFileName(name)
    func refuse(_ reason: String) -> VaultError { .uploadRefused(name: fileName, reason: reason) }
    guard length > 0 else { throw refuse("empty file") }
    guard length <= maxUploadBytes else {
      throw refuse("larger than the \(describeSize(maxUploadBytes)) limit")
    }
    guard length <= inMemoryLimit else {
      throw refuse("larger than the \(describeSize(inMemoryLimit)) an upload may take in memory")
    }
    try await uploadMemory.reserve(
      length, waitingAtMost: seconds, timeout: .uploadsBusy(name: fileName, seconds: seconds))
    return PhotoUpload(intake: self, name: fileName, length: length, modifiedAt: modifiedAt, hashKey: hashKey)
  }

  /// The most bytes of a name kept in a record (a file name's limit on Linux).
  static let nameLimit = 255

  /// The last component of `given` (a browser may send a path, with either slash), if it
  /// is a name a file could have here.
  static func plainFileName(_ given: String) throws -> String {
    let name = String(
      given.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? "")
    func refuse(_ reason: String) -> VaultError { .uploadRefused(name: given, reason: reason) }
    if name.isEmpty { throw refuse("no file name") }
    if name == "." || name == ".." { throw refuse("not a file name") }
    if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
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

  /// Stores a whole upload (see `PhotoUpload.finish`).
  func store(_ bytes: PinnedBytes, contentHash: String, name: String, modifiedAt: Timestamp?) throws
    -> UploadOutcome
  {
    // A duplicate costs no decoding.
    if try isStored(contentHash) { return .duplicate }
    let thumbnail: Thumbnail
    let format: ImageFormat
    let details: PhotoDetails
    let liveIdentifier: String?
    do {
      let signature = Array(bytes.buffer.prefix(min(bytes.count, ImageFormat.signatureLength)))
      format = try ImageFormat.recognise(signature, path: name)
      let image = try thumbnailer.open(bytes, name: name, format: format)
      let reserved = decodeMemory.reserve(image.memoryNeeded)
      defer { decodeMemory.release(reserved) }
      thumbnail = try thumbnailer.makeThumbnail(image)
      details = try PhotoDetailsReader.read(image, file: bytes, source: nil)
      liveIdentifier = AppleContentIdentifier.read(image, file: bytes, source: nil)
    } catch let error as VaultError {
      guard let problem = error.contentProblem else { throw error }
      throw VaultError.uploadRefused(name: name, reason: problem)
    }
    return try spaceLock.withLock {
      try space.change { writer in
        // Another command, or another upload, may have stored it since.
        guard !writer.entries.contains(where: { $0.record.contentHash == contentHash }) else {
          return .duplicate
        }
        let record = thumbnail.videoFactsApplied(
          to: details.applied(
            to: PhotoRecord(
              id: .random(), name: name, bytes: Int64(bytes.count), format: format, width: thumbnail.width,
              height: thumbnail.height, orientation: thumbnail.orientation, modifiedAt: modifiedAt ?? .now(),
              importedAt: .now(), contentHash: contentHash)))
        let photo = try PreparedPhoto(
          record: record, thumbnail: thumbnail, in: writer, source: name, flusher: nil
        ) {
          try $0.write(UnsafeRawBufferPointer(bytes.buffer.extracting(0..<bytes.count)))
        }
        try photo.moveIntoPlace(space: writer)
        // Every upload of the session is one place: a still and a MOV of one stem pair.
        try writer.commitImported(
          [record], along: livePairing.entries(for: record, identifier: liveIdentifier, place: ""))
        return .added(record)
      }
    }
  }

  /// Whether the space holds a photo with this hash. What the space read last says no
  /// for most uploads at no cost; a yes is read again, as another command may have deleted
  /// the photo since.
  private func isStored(_ contentHash: String) throws -> Bool {
    try spaceLock.withLock {
      func holds() -> Bool { space.entries.contains { $0.record.contentHash == contentHash } }
      guard holds() else { return false }
      try space.reload()
      return holds()
    }
  }
}

/// A size limit for a message: whole MB (10⁶ bytes), whole MiB, or bytes.
func describeSize(_ bytes: Int) -> String {
  if bytes >= 1_000_000 && bytes % 1_000_000 == 0 { return "\(bytes / 1_000_000) MB" }
  if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
  return "\(bytes) bytes"
}
