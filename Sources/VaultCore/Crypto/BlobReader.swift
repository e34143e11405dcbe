import CSodium
import Foundation

/// Decrypts a blob file chunk by chunk. Every chunk is authenticated before any of its
/// bytes are returned, and the stream must end with the final chunk exactly at the end of
/// the file: truncation, reordering, a swapped blob or a flipped byte is an error naming
/// `what` (e.g. "photo 'IMG_0001.jpg'").
///
/// A version-2 blob's plaintext is its payload, then padding: a reader reads the payload
/// (which says where it ends), then calls `readPadding()`.
package final class BlobReader {
  let what: String
  /// 1 (format 1: the plaintext is the payload) or 2 (the payload is padded).
  let version: UInt8
  /// How many plaintext bytes have been handed out so far.
  private(set) var position = 0
  private let source: any BlobSource
  /// Where the next ciphertext byte is read from.
  private var sourceOffset = 0
  private let state = SecretStreamState()
  private let additionalData: [UInt8]
  private let chunk = SecureBytes(count: BlobFormat.chunkSize)
  private var chunkLength = 0
  private var chunkOffset = 0
  private var chunkNumber = 0
  private var ciphertext = [UInt8](repeating: 0, count: BlobFormat.chunkSize + BlobFormat.chunkOverhead)
  private(set) var reachedEnd = false

  package convenience init(path: String, kind: BlobKind, key: SecureBytes, what: String) throws {
    try self.init(source: LocalBlobFile.open(path, what: what), kind: kind, key: key, what: what)
  }

  /// Reads the blob `source` holds from its start.
  package init(source: any BlobSource, kind: BlobKind, key: SecureBytes, what: String) throws {
    Sodium.ensureInitialized()
    self.what = what
    self.source = source
    var prefix = [UInt8](repeating: 0, count: BlobFormat.prefixLength + BlobFormat.streamHeaderLength)
    let count = try prefix.withUnsafeMutableBytes {
      try source.read(at: 0, into: $0.baseAddress!, count: $0.count, what: what)
    }
    sourceOffset = count
    guard count == prefix.count else {
      throw VaultError.damagedBlob(what: what, reason: "truncated header")
    }
    guard Array(prefix[0..<4]) == BlobFormat.magic else {
      throw VaultError.damagedBlob(what: what, reason: "not a vault blob")
    }
    guard prefix[4] == BlobFormat.unpaddedVersion || prefix[4] == BlobFormat.paddedVersion else {
      throw VaultError.damagedBlob(what: what, reason: "unsupported blob version \(prefix[4])")
    }
    guard prefix[5] == kind.rawValue else {
      throw VaultError.damagedBlob(what: what, reason: "holds a blob of another kind")
    }
    version = prefix[4]
    additionalData = BlobFormat.prefix(kind: kind, version: version)
    let header = Array(prefix[BlobFormat.prefixLength...])
    guard crypto_secretstream_xchacha20poly1305_init_pull(state.pointer, header, key.bytes) == 0 else {
      throw VaultError.damagedBlob(what: what, reason: "bad stream header")
    }
  }

  /// The next decrypted bytes (at most one chunk, and at most `maxCount`), or nil after
  /// the final chunk. The buffer is valid until the next call.
  func nextBytes(atMost maxCount: Int = .max) throws -> UnsafeRawBufferPointer? {
    precondition(maxCount > 0)
    while chunkOffset == chunkLength {
      if reachedEnd { return nil }
      try readChunk()
    }
    let count = min(maxCount, chunkLength - chunkOffset)
    let bytes = UnsafeRawBufferPointer(start: chunk.pointer + chunkOffset, count: count)
    chunkOffset += count
    position += count
    return bytes
  }

  /// Exactly `count` decrypted bytes; running into the end of the blob first is damage.
  /// The caller wipes the result.
  func readExactly(_ count: Int) throws -> [UInt8] {
    var result = [UInt8]()
    result.reserveCapacity(count)  // never grown, so never copied
    do {
      while result.count < count {
        if chunkOffset == chunkLength {
          if reachedEnd { throw VaultError.damagedBlob(what: what, reason: "ends too early") }
          try readChunk()
          continue
        }
        let take = min(count - result.count, chunkLength - chunkOffset)
        result.append(contentsOf: UnsafeRawBufferPointer(start: chunk.pointer + chunkOffset, count: take))
        chunkOffset += take
        position += take
      }
    } catch {
      result.wipe()
      throw error
    }
    return result
  }

  /// The bytes of the file not read yet: more than the plaintext they hold.
  var remainingFileBytes: Int { max(0, source.length - sourceOffset) }

  /// The whole remaining plaintext, padding included (for format 1's small blobs:
  /// thumbnails, the index). The caller wipes the result; no other copy of it is left in
  /// memory.
  package func readToEnd(limit: Int) throws -> [UInt8] {
    var result = [UInt8]()
    // Room for the whole file at once (its plaintext is a little shorter): no copies to
    // wipe as it grows.
    if source.length > 0 { result.reserveCapacity(min(source.length, limit)) }
    do {
      while let bytes = try nextBytes() {
        if result.count + bytes.count > limit {
          throw VaultError.damagedBlob(what: what, reason: "is unexpectedly large")
        }
        if result.count + bytes.count > result.capacity {
          // Grown by hand, so that the storage left behind is wiped, not just freed.
          var larger = [UInt8]()
          larger.reserveCapacity(max(result.count + bytes.count, result.capacity * 2))
          larger.append(contentsOf: result)
          result.wipe()
          result = larger
        }
        result.append(contentsOf: bytes)
      }
    } catch {
      result.wipe()
      throw error
    }
    return result
  }

  /// Reads the rest of the plaintext, which must be the canonical padding of the payload
  /// read so far: zero bytes up to exactly `Padme.paddedLength(position)`, then the end of
  /// the blob. A version-1 blob has no padding: its payload must end it. Anything else is
  /// damage.
  func readPadding() throws {
    let payloadLength = position
    let expected = version == BlobFormat.paddedVersion ? Padme.paddedLength(payloadLength) : payloadLength
    while let bytes = try nextBytes(atMost: max(1, expected - position)) {
      guard position <= expected else {
        let reason =
          version == BlobFormat.paddedVersion
          ? "holds more padding than the \(expected - payloadLength) bytes a \(payloadLength)-byte payload gets"
          : "holds bytes after its \(payloadLength)-byte payload"
        throw VaultError.damagedBlob(what: what, reason: reason)
      }
      guard bytes.allSatisfy({ $0 == 0 }) else {
        throw VaultError.damagedBlob(what: what, reason: "its padding is not all zero bytes")
      }
    }
    guard position == expected else {
      throw VaultError.damagedBlob(
        what: what,
        reason:
          "holds \(position - payloadLength) bytes of padding, a \(payloadLength)-byte payload gets \(expected - payloadLength)"
      )
    }
  }

  /// Decrypts the rest of the blob straight into `buffer`, chunk by chunk (nothing is
  /// copied, so nothing is left to wipe); the count of bytes. More than fits is damage.
  /// `progress` is told the count of bytes authenticated and decrypted after each chunk.
  func readRemaining(into buffer: UnsafeMutableRawBufferPointer, progress: (Int) throws -> Void = { _ in })
    throws
    -> Int
  {
    precondition(chunkOffset == chunkLength, "bytes handed out already are read first")
    var filled = 0
    while !reachedEnd {
      try readChunk { length in
        guard filled + length <= buffer.count else {
          throw VaultError.damagedBlob(what: what, reason: "is unexpectedly large")
        }
        return buffer.baseAddress!.advanced(by: filled).assumingMemoryBound(to: UInt8.self)
      }
      filled += chunkLength
      position += chunkLength
      chunkOffset = chunkLength
      try progress(filled)
    }
    return filled
  }

  private func readChunk() throws {
    try readChunk { _ in chunk.mutableBytes }
  }

  /// Reads and decrypts the next chunk into the place `destination` gives for its
  /// plaintext's length.
  private func readChunk(into destination: (Int) throws -> UnsafeMutablePointer<UInt8>) throws {
    let fullLength = BlobFormat.chunkSize + BlobFormat.chunkOverhead
    let count = try ciphertext.withUnsafeMutableBytes {
      try source.read(at: sourceOffset, into: $0.baseAddress!, count: fullLength, what: what)
    }
    sourceOffset += count
    if count < BlobFormat.chunkOverhead {
      throw VaultError.damagedBlob(what: what, reason: "truncated: the final chunk is missing")
    }
    var length: UInt64 = 0
    var tag: UInt8 = 0
    let output = try destination(count - BlobFormat.chunkOverhead)
    let status = crypto_secretstream_xchacha20poly1305_pull(
      state.pointer, output, &length, &tag, ciphertext, UInt64(count), additionalData,
      UInt64(additionalData.count))
    guard status == 0 else {
      throw VaultError.damagedBlob(
        what: what, reason: "chunk \(chunkNumber) does not authenticate (changed, truncated or swapped)")
    }
    chunkNumber += 1
    // A chunk whose tag is wrong for its place was decrypted all the same: wiped first.
    if count == fullLength {
      guard tag == BlobFormat.tagMessage else {
        Sodium.zero(output, count: Int(length))
        throw VaultError.damagedBlob(what: what, reason: "unexpected chunk tag \(tag)")
      }
    } else {
      guard tag == BlobFormat.tagFinal else {
        Sodium.zero(output, count: Int(length))
        throw VaultError.damagedBlob(what: what, reason: "truncated: the final chunk is missing")
      }
      reachedEnd = true
    }
    chunkLength = Int(length)
    chunkOffset = 0
  }
}
