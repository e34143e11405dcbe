import CSodium

/// BLAKE2b-256 of a photo's bytes, keyed with the space's content-hash key: equal photos
/// give equal hashes inside one space, and the hash tells nothing without the key.
package final class ContentHasher {
  // Swift does not import the 64-byte-aligned state struct, only an opaque pointer to it.
  // The state holds the key, so it lives in secure memory, wiped when released.
  let storage = SecureBytes.state(byteCount: crypto_generichash_statebytes(), alignment: 64)
  private var state: OpaquePointer { OpaquePointer(storage.pointer) }

  package init(key: SecureBytes) {
    Sodium.ensureInitialized()
    Sodium.check(crypto_generichash_init(state, key.bytes, key.count, 32), "crypto_generichash_init")
  }

  package func update(_ bytes: UnsafeRawBufferPointer) {
    Sodium.check(
      crypto_generichash_update(
        state, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count)),
      "crypto_generichash_update")
  }

  /// The hash as 64 lowercase hex digits; the hasher is spent afterwards.
  package func finish() -> String {
    var output = [UInt8](repeating: 0, count: 32)
    Sodium.check(crypto_generichash_final(state, &output, 32), "crypto_generichash_final")
    return hexString(output)
  }
}
