import CSodium

/// Seals and opens the chunks of a seekable blob (XChaCha20-Poly1305, IETF) in place, each
/// under its own nonce (`SeekableBlobFormat.nonce`), with the blob's 6-byte prefix as
/// additional data so that its version and kind cannot be changed.
struct ChunkCipher {
  let key: SecureBytes
  let noncePrefix: [UInt8]
  let additionalData: [UInt8]

  /// Seals `count` bytes at `plaintext` into `sealed` (`count` + 16 bytes).
  func seal(
    _ plaintext: UnsafePointer<UInt8>, count: Int, index: Int, last: Bool,
    into sealed: UnsafeMutablePointer<UInt8>
  ) {
    precondition(count <= SeekableBlobFormat.chunkSize)
    Sodium.ensureInitialized()
    let nonce = SeekableBlobFormat.nonce(prefix: noncePrefix, index: index, last: last)
    var sealedLength: UInt64 = 0
    // It fails only for a message longer than the cipher's maximum, and chunks are 64 KiB.
    Sodium.check(
      crypto_aead_xchacha20poly1305_ietf_encrypt(
        sealed, &sealedLength, plaintext, UInt64(count), additionalData, UInt64(additionalData.count), nil,
        nonce, key.bytes),
      "crypto_aead_xchacha20poly1305_ietf_encrypt")
  }

  /// Opens `count` sealed bytes into `plaintext` (`count` − 16 bytes); false when they do
  /// not authenticate as chunk `index`, last or not.
  func open(
    _ sealed: UnsafePointer<UInt8>, count: Int, index: Int, last: Bool,
    into plaintext: UnsafeMutablePointer<UInt8>
  ) -> Bool {
    precondition(count >= SeekableBlobFormat.tagLength && count <= SeekableBlobFormat.sealedChunkSize)
    Sodium.ensureInitialized()
    let nonce = SeekableBlobFormat.nonce(prefix: noncePrefix, index: index, last: last)
    var length: UInt64 = 0
    return crypto_aead_xchacha20poly1305_ietf_decrypt(
      plaintext, &length, nil, sealed, UInt64(count), additionalData, UInt64(additionalData.count), nonce,
      key.bytes) == 0
  }
}
