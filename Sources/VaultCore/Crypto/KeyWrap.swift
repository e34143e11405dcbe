import CSodium

/// The `key` file of a space: its master key sealed with XChaCha20-Poly1305 under the
/// password's wrapping key. Layout: "VLTK" | version 1 | 24-byte nonce | 48-byte sealed key.
/// The `recovery` file has the same layout under its own magic, "VLTR", and the recovery
/// key's wrapping key, so that neither file ever opens as the other.
package enum KeyWrap {
  static let magic = Array("VLTK".utf8)
  static let recoveryMagic = Array("VLTR".utf8)
  static let version: UInt8 = 1
  static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
  static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
  static let fileLength = magic.count + 1 + nonceLength + MasterKey.length + tagLength

  package static func wrap(
    _ master: MasterKey, with wrappingKey: SecureBytes, magic: [UInt8] = KeyWrap.magic,
    nonce: [UInt8] = Sodium.randomBytes(KeyWrap.nonceLength)
  ) -> [UInt8] {
    precondition(nonce.count == nonceLength)
    let header = magic + [version]
    var sealed = [UInt8](repeating: 0, count: MasterKey.length + tagLength)
    var sealedLength: UInt64 = 0
    // It fails only for a message longer than the cipher's maximum; a key is 32 bytes.
    Sodium.check(
      crypto_aead_xchacha20poly1305_ietf_encrypt(
        &sealed, &sealedLength, master.key.bytes, UInt64(MasterKey.length), header,
        UInt64(header.count), nil, nonce, wrappingKey.bytes),
      "crypto_aead_xchacha20poly1305_ietf_encrypt")
    return header + nonce + sealed
  }

  /// Returns the master key, or nil when the file is malformed or does not authenticate.
  static func unwrap(_ file: [UInt8], with wrappingKey: SecureBytes, magic: [UInt8] = KeyWrap.magic)
    -> MasterKey?
  {
    guard file.count == fileLength, Array(file[0..<4]) == magic, file[4] == version else {
      return nil
    }
    let header = Array(file[0..<5])
    let nonce = Array(file[5..<(5 + nonceLength)])
    let sealed = Array(file[(5 + nonceLength)...])
    let key = SecureBytes(count: MasterKey.length)
    var keyLength: UInt64 = 0
    let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
      key.mutableBytes, &keyLength, nil, sealed, UInt64(sealed.count), header,
      UInt64(header.count), nonce, wrappingKey.bytes)
    guard status == 0, keyLength == UInt64(MasterKey.length) else { return nil }
    return MasterKey(key: key)
  }
}
