import CSodium

/// Encrypts a stream of plaintext into a blob file, chunk by chunk, so that no more than
/// one chunk of plaintext is ever held in memory. Blobs of every kind but format 1's index
/// are version 2: `finish()` pads the payload with zero bytes to its Padmé length, so the
/// blob's size reveals only a coarse bucket. Such a payload must say where it ends (a
/// length it carries, or a self-delimiting encoding) for a reader to find the padding.
package final class BlobWriter {
  /// The blob's version (`BlobFormat.writtenVersion(of:)`): 2 pads, 1 does not.
  let version: UInt8
  private let output: TemporaryFile
  private let state = SecretStreamState()
  private let additionalData: [UInt8]
  private let pending = SecureBytes(count: BlobFormat.chunkSize)
  private var pendingCount = 0
  private var ciphertext = [UInt8](repeating: 0, count: BlobFormat.chunkSize + BlobFormat.chunkOverhead)
  /// The bytes given to `write` so far: the payload, without the padding `finish()` adds.
  private(set) var payloadLength = 0
  private var finished = false

  package init(kind: BlobKind, key: SecureBytes, output: TemporaryFile) throws {
    Sodium.ensureInitialized()
    self.output = output
    version = BlobFormat.writtenVersion(of: kind)
    additionalData = BlobFormat.prefix(kind: kind, version: version)
    var header = [UInt8](repeating: 0, count: BlobFormat.streamHeaderLength)
    Sodium.check(
      crypto_secretstream_xchacha20poly1305_init_push(state.pointer, &header, key.bytes),
      "crypto_secretstream_xchacha20poly1305_init_push")
    try output.write(additionalData + header)
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws {
    precondition(!finished)
    var offset = 0
    while offset < bytes.count {
      let take = min(BlobFormat.chunkSize - pendingCount, bytes.count - offset)
      (pending.pointer + pendingCount).copyMemory(from: bytes.baseAddress! + offset, byteCount: take)
      pendingCount += take
      offset += take
      payloadLength += take
      if pendingCount == BlobFormat.chunkSize {
        try push(tag: BlobFormat.tagMessage)
      }
    }
  }

  package func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try write($0) }
  }

  /// Pads a version-2 blob's payload to its Padmé length, then writes the final chunk
  /// (possibly empty), which marks the blob complete.
  package func finish() throws {
    precondition(!finished)
    if version == BlobFormat.paddedVersion {
      var padding = Padme.paddedLength(payloadLength) - payloadLength
      while padding > 0 {
        let take = min(BlobFormat.chunkSize - pendingCount, padding)
        (pending.pointer + pendingCount).initializeMemory(as: UInt8.self, repeating: 0, count: take)
        pendingCount += take
        padding -= take
        if pendingCount == BlobFormat.chunkSize {
          try push(tag: BlobFormat.tagMessage)
        }
      }
    }
    try push(tag: BlobFormat.tagFinal)
    finished = true
  }

  private func push(tag: UInt8) throws {
    var length: UInt64 = 0
    // It fails only for a chunk longer than the stream's maximum, and chunks are 64 KiB.
    Sodium.check(
      crypto_secretstream_xchacha20poly1305_push(
        state.pointer, &ciphertext, &length, pending.bytes, UInt64(pendingCount), additionalData,
        UInt64(additionalData.count), tag),
      "crypto_secretstream_xchacha20poly1305_push")
    try ciphertext.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[0..<Int(length)])) }
    sodium_memzero(pending.pointer, pendingCount)
    pendingCount = 0
  }
}
