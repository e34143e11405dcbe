import CSodium

/// Encrypts a stream of plaintext into a blob file, chunk by chunk, so that no more than
/// one chunk of plaintext is ever held in memory.
final class BlobWriter {
  private let output: TemporaryFile
  private let state = SecretStreamState()
  private let additionalData: [UInt8]
  private let pending = SecureBytes(count: BlobFormat.chunkSize)
  private var pendingCount = 0
  private var ciphertext = [UInt8](repeating: 0, count: BlobFormat.chunkSize + BlobFormat.chunkOverhead)
  private(set) var plaintextLength = 0
  private var finished = false

  init(kind: BlobKind, key: SecureBytes, output: TemporaryFile) throws {
    Sodium.ensureInitialized()
    self.output = output
    additionalData = BlobFormat.prefix(kind: kind)
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
      plaintextLength += take
      if pendingCount == BlobFormat.chunkSize {
        try push(tag: BlobFormat.tagMessage)
      }
    }
  }

  func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try write($0) }
  }

  /// Writes the final chunk (possibly empty), which marks the blob complete.
  func finish() throws {
    precondition(!finished)
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
