import CSodium

/// BLAKE2b-256 of a photo's bytes, keyed with the space's content-hash key: equal photos
/// give equal hashes inside one space, and the hash tells nothing without the key.
final class ContentHasher {
  // Swift does not import the 64-byte-aligned state struct, only an opaque pointer to it.
  private let memory: UnsafeMutableRawPointer
  private var state: OpaquePointer { OpaquePointer(memory) }

  init(key: SecureBytes) {
    Sodium.ensureInitialized()
    memory = .allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
    crypto_generichash_init(state, key.bytes, key.count, 32)
  }

  deinit {
    sodium_memzero(memory, crypto_generichash_statebytes())
    memory.deallocate()
  }

  func update(_ bytes: UnsafeRawBufferPointer) {
    crypto_generichash_update(
      state, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
  }

  /// The hash as 64 lowercase hex digits; the hasher is spent afterwards.
  func finish() -> String {
    var output = [UInt8](repeating: 0, count: 32)
    crypto_generichash_final(state, &output, 32)
    return hexString(output)
  }
}
