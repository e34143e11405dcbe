/// Where a blob's ciphertext is read from: its file in the vault (`LocalBlobFile`) or its
/// copy on a remote (`RemoteBlobFile`, an offloaded original). The blob readers read
/// through it by place, so that both give the same checks and the same plaintext.
/// Shared by the threads of one reader (`ChunkReadAhead`), so it must be thread-safe.
package protocol BlobSource: AnyObject, Sendable {
  /// The ciphertext's length in bytes.
  var length: Int { get }

  /// Copies up to `buffer.count` bytes from `offset` into `buffer`; the count copied,
  /// short only at the end of the blob. Throws `BlobReadFailure` when the bytes cannot be
  /// read (the reader names the blob), or an error of its own that names where it reads
  /// from (a remote that cannot be reached).
  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int

  /// Hands `body` the `count` bytes from `offset` where the source holds them in memory
  /// already, so that they need no copy, and returns what it returns; nil, without calling
  /// it, where it does not (then `read` them). Throws as `read` does.
  func withBytesInPlace<Result>(
    at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) throws -> Result?

  /// Whether its bytes come over the network (an offloaded original): reading them ahead
  /// of need costs fetches, not only time.
  var fetchesOverNetwork: Bool { get }
}

/// Why a blob's bytes could not be read, for the reader to word as damage to that blob.
package struct BlobReadFailure: Error {
  package let reason: String

  package init(_ reason: String) { self.reason = reason }
}

extension BlobSource {
  /// Most sources are files on this machine.
  package var fetchesOverNetwork: Bool { false }

  /// Most sources hold nothing in memory.
  package func withBytesInPlace<Result>(
    at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) throws -> Result? { nil }

  /// `withBytesInPlace`, turning a `BlobReadFailure` into the damage of the blob `what`
  /// names.
  func withBytesInPlace<Result>(
    at offset: Int, count: Int, what: String, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) throws -> Result? {
    do {
      return try withBytesInPlace(at: offset, count: count, body)
    } catch let failure as BlobReadFailure {
      throw VaultError.damagedBlob(what: what, reason: failure.reason)
    }
  }

  /// Reads `count` bytes from `offset` into `buffer` as `read(at:into:)` does, turning a
  /// `BlobReadFailure` into the damage of the blob `what` names.
  func read(at offset: Int, into buffer: UnsafeMutableRawPointer, count: Int, what: String) throws -> Int {
    do {
      return try read(at: offset, into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
    } catch let failure as BlobReadFailure {
      throw VaultError.damagedBlob(what: what, reason: failure.reason)
    }
  }
}
