import CSodium

/// Constants of the encrypted blob format (docs/FORMAT.md, "Blobs").
enum BlobFormat {
  static let magic = Array("VLTB".utf8)
  static let version: UInt8 = 1
  /// Plaintext bytes in every chunk but the last; the last holds 0 to chunkSize − 1.
  static let chunkSize = 65536
  static let streamHeaderLength = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
  static let chunkOverhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)
  static let prefixLength = magic.count + 2
  static let tagMessage = UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)
  static let tagFinal = UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL)

  /// The plaintext prefix of a blob, also the additional data of every chunk.
  static func prefix(kind: BlobKind) -> [UInt8] {
    magic + [version, kind.rawValue]
  }

  /// The size of a blob that holds `plaintextLength` bytes.
  static func blobLength(plaintextLength: Int) -> Int {
    let chunks = plaintextLength / chunkSize + 1
    return prefixLength + streamHeaderLength + plaintextLength + chunks * chunkOverhead
  }
}

/// The state of one secretstream (it holds the stream's key), in secure memory that is
/// wiped when released.
final class SecretStreamState {
  let storage = SecureBytes.state(byteCount: crypto_secretstream_xchacha20poly1305_statebytes())
  let pointer: UnsafeMutablePointer<crypto_secretstream_xchacha20poly1305_state>

  init() {
    precondition(MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.size <= storage.count)
    pointer = storage.pointer.bindMemory(to: crypto_secretstream_xchacha20poly1305_state.self, capacity: 1)
  }
}
