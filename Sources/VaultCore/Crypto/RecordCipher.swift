import CSodium

/// XChaCha20-Poly1305 (IETF) with additional data, sealing one message at a time under a
/// random nonce: what the journal's records are sealed with (docs/FORMAT.md, "Journal
/// segments"). libsodium does the work; lengths are checked here.
enum RecordCipher {
  static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
  static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

  /// `plaintext` sealed (ciphertext ‖ tag) under `key` and `nonce`, authenticating
  /// `additional` with it.
  static func seal(_ plaintext: [UInt8], additional: [UInt8], nonce: [UInt8], key: SecureBytes) -> [UInt8] {
    precondition(nonce.count == nonceLength)
    Sodium.ensureInitialized()
    var sealed = [UInt8](repeating: 0, count: plaintext.count + tagLength)
    var sealedLength: UInt64 = 0
    // It fails only for a message longer than the cipher's maximum (records are bounded).
    Sodium.check(
      crypto_aead_xchacha20poly1305_ietf_encrypt(
        &sealed, &sealedLength, plaintext, UInt64(plaintext.count), additional, UInt64(additional.count), nil,
        nonce, key.bytes),
      "crypto_aead_xchacha20poly1305_ietf_encrypt")
    return sealed
  }

  /// Opens `nonce ‖ sealed` into `plaintext` (sized `sealed`'s length less the tag);
  /// false when it does not authenticate under `key` with `additional`.
  static func open(
    _ message: UnsafeBufferPointer<UInt8>, additional: [UInt8], key: SecureBytes,
    into plaintext: inout [UInt8]
  ) -> Bool {
    precondition(
      message.count >= nonceLength + tagLength && plaintext.count == message.count - nonceLength - tagLength)
    Sodium.ensureInitialized()
    var plaintextLength: UInt64 = 0
    let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
      &plaintext, &plaintextLength, nil, message.baseAddress! + nonceLength,
      UInt64(message.count - nonceLength),
      additional, UInt64(additional.count), message.baseAddress!, key.bytes)
    return status == 0
  }
}
