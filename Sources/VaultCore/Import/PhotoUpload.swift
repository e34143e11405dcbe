import Foundation

/// What became of an upload that `PhotoUpload.finish` stored.
public enum UploadOutcome: Sendable {
  case added(PhotoRecord)
  /// A photo with the same content is already in the space: the item that holds it, as
  /// `list` shows it (nil when the list no longer shows it).
  case duplicate(of: DuplicatedItem?)
}

/// One photo or video arriving as bytes, from `UploadIntake.begin` to `finish` or `cancel`.
/// Its bytes are encrypted as they arrive into a temporary blob in the space
/// (`StreamedOriginal`), never written as plaintext and never held whole in memory, and
/// hashed as they arrive; whichever way it ends, the temporary blob goes unless it became
/// the photo's original.
public final class PhotoUpload: @unchecked Sendable {
  /// The file name as given (only the last path component).
  public let name: String
  public let length: Int
  /// What it took of the intake's memory budget: its length, when it may be a still that
  /// is read back whole to be decoded, else a share for its buffers.
  let reserved: Int
  private let modifiedAt: Timestamp?
  private let intake: UploadIntake
  /// Guards everything below: `cancel` may come from another thread than the bytes.
  private let lock = NSLock()
  private var phase = Phase.receiving
  private var original: StreamedOriginal?
  private var hasher: ContentHasher?
  private var receivedCount = 0
  /// Whether its first bytes were looked at (`UploadIntake.refusalFromSignature`).
  private var signatureChecked = false

  private enum Phase {
    case receiving
    /// `finish` owns the blob: a `cancel` meanwhile is left to it.
    case finishing
    /// The temporary blob is gone (or in place) and the memory given back.
    case ended
  }

  init(
    intake: UploadIntake, name: String, length: Int, reserved: Int, modifiedAt: Timestamp?,
    hashKey: SecureBytes, original: StreamedOriginal
  ) {
    self.intake = intake
    self.name = name
    self.length = length
    self.reserved = reserved
    self.modifiedAt = modifiedAt
    self.original = original
    hasher = ContentHasher(key: hashKey)
  }

  /// The bytes that have arrived so far.
  public var received: Int { lock.withLock { receivedCount } }

  /// Encrypts the bytes into the temporary blob and hashes them (content-hash key) as they
  /// arrive. BLOCKS on the disk: call it off the event loops. Throws `.uploadRefused` when
  /// more than `length` bytes arrive, when the disk is full (`diskFullReason`) or cannot
  /// be written, or once the upload has ended; the upload is cancelled then.
  public func append(_ chunk: UnsafeRawBufferPointer) throws {
    let failure: VaultError? = try lock.withLock {
      guard phase == .receiving, let original, let hasher else {
        throw refusal("the upload has already ended")
      }
      guard chunk.count <= length - receivedCount else {
        return refusal("more than the \(length) bytes announced arrived")
      }
      do {
        try original.write(chunk)
      } catch let error as VaultError {
        return writeFailure(error)
      }
      hasher.update(chunk)
      receivedCount += chunk.count
      guard !signatureChecked, receivedCount >= min(length, ImageFormat.signatureLength) else { return nil }
      signatureChecked = true
      return intake.refusalFromSignature(of: original, readableWhole: reserved >= length).map(refusal)
    }
    if let failure {
      cancel()
      throw failure
    }
  }

  /// What the page and the terminal are told when the blob cannot be written.
  public static let diskFullReason = "the vault's disk is full"

  private func writeFailure(_ error: VaultError) -> VaultError {
    Self.diskFull(error, name: name) as? VaultError ?? error
  }

  /// `error`, unless it says the disk is full (when the blob, its record or its thumbnail
  /// was being written): then the one refusal that says so.
  static func diskFull(_ error: any Error, name: String) -> any Error {
    if case .io(_, let reason)? = error as? VaultError, reason.hasSuffix(String(cString: strerror(ENOSPC))) {
      return VaultError.uploadRefused(name: name, reason: diskFullReason)
    }
    return error
  }

  /// BLOCKS (reading back, decode, fsync, commit): call it on a thread pool
  /// (NIOThreadPool.singleton.runIfActive), never on an event loop. Needs all `length`
  /// bytes. Recognises the format (as add) from the temporary blob's first bytes, makes the
  /// thumbnail reading it back (a still whole into memory, a video by range), then inside
  /// `space.change` checks the hash against the space's current photos (another command
  /// may have added it meanwhile), writes the record after the payload, seals the
  /// thumbnail, moves both into place, flushes, appends the journal entry.
  /// Throws `.uploadRefused` naming the upload and the reason for a file that is not
  /// accepted (or not complete), and the space's own errors. The upload ends with it,
  /// whatever it returns.
  public func finish() throws -> UploadOutcome {
    let taken: (StreamedOriginal, String)? = try lock.withLock {
      guard phase == .receiving, let original, let hasher else {
        throw refusal("the upload has already ended")
      }
      guard receivedCount == length else { return nil }
      phase = .finishing
      return (original, hasher.finish())
    }
    guard let (original, contentHash) = taken else {
      let arrived = received
      cancel()
      throw refusal("incomplete: \(arrived) of \(length) bytes arrived")
    }
    defer { end(from: .finishing) }
    do {
      return try intake.store(
        original, contentHash: contentHash, name: name, modifiedAt: modifiedAt,
        readableWhole: reserved >= length)
    } catch {
      throw Self.diskFull(error, name: name)
    }
  }

  /// Drops what arrived (the temporary blob goes) and gives back the memory. Idempotent;
  /// deinit calls it. While `finish` runs, it does nothing: `finish` ends the upload itself.
  public func cancel() {
    end(from: .receiving)
  }

  deinit {
    cancel()
  }

  private func end(from expected: Phase) {
    let ended: StreamedOriginal? = lock.withLock {
      guard phase == expected else { return nil }
      phase = .ended
      hasher = nil
      defer { original = nil }
      return original
    }
    guard let ended else { return }
    // Removed now (a blob moved into place is left where it is).
    ended.file.discard()
    intake.release(reserved)
  }

  private func refusal(_ reason: String) -> VaultError {
    .uploadRefused(name: name, reason: reason)
  }
}
