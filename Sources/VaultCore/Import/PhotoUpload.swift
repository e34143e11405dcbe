import Foundation

/// What became of an upload that `PhotoUpload.finish` stored.
public enum UploadOutcome: Sendable {
  case added(PhotoRecord)
  /// A photo with the same content is already in the space.
  case duplicate
}

/// One photo arriving as bytes, from `UploadIntake.begin` to `finish` or `cancel`. Its
/// bytes are held in memory only (never written as plaintext), hashed as they arrive, and
/// wiped when it ends, whichever way it ends.
public final class PhotoUpload: @unchecked Sendable {
  /// The file name as given (only the last path component).
  public let name: String
  public let length: Int
  private let modifiedAt: Timestamp?
  private let intake: UploadIntake
  /// Guards everything below: `cancel` may come from another thread than the bytes.
  private let lock = NSLock()
  private var phase = Phase.receiving
  private var bytes: PinnedBytes?
  private var hasher: ContentHasher?
  private var receivedCount = 0

  private enum Phase {
    case receiving
    /// `finish` owns the bytes: a `cancel` meanwhile is left to it.
    case finishing
    /// The bytes are wiped and the memory given back.
    case ended
  }

  init(intake: UploadIntake, name: String, length: Int, modifiedAt: Timestamp?, hashKey: SecureBytes) {
    self.intake = intake
    self.name = name
    self.length = length
    self.modifiedAt = modifiedAt
    bytes = PinnedBytes(count: length)
    hasher = ContentHasher(key: hashKey)
  }

  /// The bytes that have arrived so far.
  public var received: Int { lock.withLock { receivedCount } }

  /// Copies the bytes into a pinned, wiped buffer and hashes them (content-hash key) as
  /// they arrive. Throws `.uploadRefused` when more than `length` bytes arrive (the
  /// upload is then cancelled), or once the upload has ended.
  public func append(_ chunk: UnsafeRawBufferPointer) throws {
    let overflow: Bool = try lock.withLock {
      guard phase == .receiving, let bytes, let hasher else { throw refusal("the upload has already ended") }
      guard chunk.count <= length - receivedCount else { return true }
      if let source = chunk.baseAddress {
        UnsafeMutableRawPointer(bytes.buffer.baseAddress! + receivedCount).copyMemory(
          from: source, byteCount: chunk.count)
      }
      hasher.update(chunk)
      receivedCount += chunk.count
      return false
    }
    if overflow {
      cancel()
      throw refusal("more than the \(length) bytes announced arrived")
    }
  }

  /// BLOCKS (decode, encrypt, fsync, commit): call it on a thread pool
  /// (NIOThreadPool.singleton.runIfActive), never on an event loop. Needs all `length`
  /// bytes. Recognises the format (as add), makes the thumbnail from memory, then inside
  /// `space.change` checks the hash against the space's current photos (another command
  /// may have added it meanwhile), encrypts the original and thumbnail into temporary
  /// files in the space, moves them into place, flushes, appends the journal entry.
  /// Throws `.uploadRefused` naming the upload and the reason for a photo that is not
  /// accepted (or not complete), and the space's own errors. The upload ends with it,
  /// whatever it returns.
  public func finish() throws -> UploadOutcome {
    let taken: (PinnedBytes, String)? = try lock.withLock {
      guard phase == .receiving, let bytes, let hasher else { throw refusal("the upload has already ended") }
      guard receivedCount == length else { return nil }
      phase = .finishing
      return (bytes, hasher.finish())
    }
    guard let (bytes, contentHash) = taken else {
      let arrived = received
      cancel()
      throw refusal("incomplete: \(arrived) of \(length) bytes arrived")
    }
    defer { end(from: .finishing) }
    return try intake.store(bytes, contentHash: contentHash, name: name, modifiedAt: modifiedAt)
  }

  /// Drops (and wipes) what arrived and gives back the memory. Idempotent; deinit calls it.
  /// While `finish` runs, it does nothing: `finish` ends the upload itself.
  public func cancel() {
    end(from: .receiving)
  }

  deinit {
    cancel()
  }

  private func end(from expected: Phase) {
    let ended: PinnedBytes? = lock.withLock {
      guard phase == expected else { return nil }
      phase = .ended
      hasher = nil
      defer { bytes = nil }
      return bytes
    }
    guard let ended else { return }
    // Wiped now, whoever still holds the buffer (a decoder not yet released).
    ended.wipe()
    intake.release(length)
  }

  private func refusal(_ reason: String) -> VaultError {
    .uploadRefused(name: name, reason: reason)
  }
}
