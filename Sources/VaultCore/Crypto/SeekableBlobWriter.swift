import CSodium
import Foundation

/// Encrypts a stream of plaintext into a seekable (version 3) blob file, chunk by chunk, as
/// it arrives: at most one chunk of plaintext is held in memory. What describes the payload
/// (an original's record, with the content hash computed while it streamed) is written
/// last, by `finish(trailer:)`, after the payload's Padmé padding (docs/FORMAT.md,
/// "Seekable blobs").
package final class SeekableBlobWriter {
  private let output: TemporaryFile
  /// Internal, with the chunk not sealed yet, for `readBack` (an upload's format and
  /// thumbnail are read from what it wrote, before its record is known).
  let cipher: ChunkCipher
  private let pending = SecureBytes(count: SeekableBlobFormat.chunkSize)
  private var pendingCount = 0
  /// The chunks sealed and written so far.
  private(set) var chunkIndex = 0
  private var sealed = [UInt8](repeating: 0, count: SeekableBlobFormat.sealedChunkSize)
  /// The bytes given to `write` so far: the payload, without padding or trailer.
  private(set) var payloadLength = 0
  private var finished = false

  /// `noncePrefix` is random unless a known-answer test gives one.
  package init(kind: BlobKind, key: SecureBytes, output: TemporaryFile, noncePrefix: [UInt8]? = nil) throws {
    self.output = output
    let prefix = noncePrefix ?? Sodium.randomBytes(SeekableBlobFormat.noncePrefixLength)
    let additionalData = BlobFormat.prefix(kind: kind, version: SeekableBlobFormat.version)
    cipher = ChunkCipher(key: key, noncePrefix: prefix, additionalData: additionalData)
    try output.write(additionalData + prefix)
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws {
    precondition(!finished)
    let chunk = SeekableBlobFormat.chunkSize
    var offset = 0
    // Whole chunks with more bytes after them (so not the last) are sealed straight from
    // the caller's bytes: copying each into `pending` and wiping it after was two more
    // passes over every byte of an import.
    if pendingCount == 0, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) {
      while bytes.count - offset > chunk {
        try seal(base + offset, count: chunk, last: false)
        offset += chunk
      }
    }
    try append(count: bytes.count - offset) { destination, start, take in
      destination.copyMemory(from: bytes.baseAddress! + offset + start, byteCount: take)
    }
    payloadLength += bytes.count
  }

  package func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try write($0) }
  }

  /// The plaintext of chunk `index` of the payload written so far, before `finish`: the
  /// chunk not sealed yet from memory, a sealed one read from `descriptor` (a reader of the
  /// output file) and authenticated into `plaintext`. Nil for a chunk that does not read
  /// back whole or does not authenticate as that chunk.
  func readBack(chunk index: Int, from descriptor: Int32, into plaintext: SecureBytes) -> UnsafePointer<
    UInt8
  >? {
    precondition(!finished && index >= 0 && index <= chunkIndex)
    if index == chunkIndex { return pending.bytes }
    let offset = SeekableBlobFormat.headerLength + index * SeekableBlobFormat.sealedChunkSize
    let opened = sealed.withUnsafeMutableBufferPointer { buffer -> Bool in
      let count = SeekableBlobFormat.sealedChunkSize
      var read = 0
      while read < count {
        let got = pread(descriptor, buffer.baseAddress! + read, count - read, off_t(offset + read))
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else { return false }
        read += got
      }
      return cipher.open(
        buffer.baseAddress!, count: count, index: index, last: false, into: plaintext.mutableBytes)
    }
    return opened ? plaintext.bytes : nil
  }

  /// Pads the payload with zero bytes, then writes `trailer` and its length (4 bytes,
  /// big-endian), so that the plaintext is exactly Padmé of payload, trailer and length;
  /// the chunk holding the end is sealed as the last.
  package func finish(trailer: [UInt8]) throws {
    precondition(!finished)
    let total = SeekableBlobFormat.plaintextLength(payloadLength: payloadLength, trailerLength: trailer.count)
    let padding = total - payloadLength - trailer.count - SeekableBlobFormat.trailerLengthSize
    try append(count: padding) { destination, _, take in
      destination.initializeMemory(as: UInt8.self, repeating: 0, count: take)
    }
    let tail = trailer + LengthPrefixedPayload.lengthBytes(trailer.count)
    try tail.withUnsafeBytes { bytes in
      try append(count: bytes.count) { destination, offset, take in
        destination.copyMemory(from: bytes.baseAddress! + offset, byteCount: take)
      }
    }
    try seal(last: true)
    finished = true
  }

  /// Adds `count` bytes that `fill` puts in place, a piece at a time. A full chunk is
  /// sealed only when more bytes come: until then it may be the last.
  private func append(
    count: Int, fill: (_ destination: UnsafeMutableRawPointer, _ offset: Int, _ take: Int) -> Void
  ) throws {
    var offset = 0
    while offset < count {
      if pendingCount == SeekableBlobFormat.chunkSize { try seal(last: false) }
      let take = min(SeekableBlobFormat.chunkSize - pendingCount, count - offset)
      fill(pending.pointer + pendingCount, offset, take)
      pendingCount += take
      offset += take
    }
  }

  /// Seals the pending chunk, and wipes it.
  private func seal(last: Bool) throws {
    try seal(pending.bytes, count: pendingCount, last: last)
    sodium_memzero(pending.pointer, pendingCount)
    pendingCount = 0
  }

  /// Seals `count` bytes at `plaintext` as the next chunk and writes it.
  private func seal(_ plaintext: UnsafePointer<UInt8>, count: Int, last: Bool) throws {
    let length = count + SeekableBlobFormat.tagLength
    sealed.withUnsafeMutableBufferPointer { buffer in
      cipher.seal(plaintext, count: count, index: chunkIndex, last: last, into: buffer.baseAddress!)
    }
    try sealed.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    chunkIndex += 1
  }
}
