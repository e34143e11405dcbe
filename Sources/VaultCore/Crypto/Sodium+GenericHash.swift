import CSodium

extension Sodium {
  /// BLAKE2b of `message`, `length` bytes long, keyed with `key` when there is one.
  /// It fails only for an output or key length outside 16...64 bytes, which vault never
  /// passes (see `check`).
  static func genericHash(_ message: [UInt8], length: Int, key: SecureBytes? = nil) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: length)
    let status =
      if let key {
        crypto_generichash(&digest, length, message, UInt64(message.count), key.bytes, key.count)
      } else {
        crypto_generichash(&digest, length, message, UInt64(message.count), nil, 0)
      }
    check(status, "crypto_generichash")
    return digest
  }
}
