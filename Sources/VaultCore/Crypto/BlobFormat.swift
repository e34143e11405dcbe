import CSodium

/// Constants of the encrypted blob format (docs/FORMAT.md, "Blobs").
enum BlobFormat {
  static let magic = Array("VLTB".utf8)
  /// Format 1's blobs: the plaintext is the payload, nothing more. Readers still accept it.
  static let unpaddedVersion: UInt8 = 1
  /// Format 2's blobs: the payload is followed by zero bytes up to its Padmé length.
  static let paddedVersion: UInt8 = 2
  /// Plaintext bytes in every chunk but the last; the last holds 0 to chunkSize − 1.
  static let chunkSize = 65536
  static let streamHeaderLength = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
  static let chunkOverhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)
  static let prefixLength = magic.count + 2
  static let tagMessage = UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)
  static let tagFinal = UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL)

  /// The version a writer gives a blob of `kind`: padded, except format 1's index, which
  /// is read to its end as JSON (so it cannot carry padding) and which format 2 replaces
  /// rather than pads.
  static func writtenVersion(of kind: BlobKind) -> UInt8 {
    kind == .index ? unpaddedVersion : paddedVersion
  }

  /// The plaintext prefix of a blob, also the additional data of every chunk (so a blob's
  /// version cannot be changed without its chunks failing to authenticate).
  static func prefix(kind: BlobKind, version: UInt8) -> [UInt8] {
    magic + [version, kind.rawValue]
  }

  /// The size of a blob that holds `plaintextLength` bytes (padding included).
  static func blobLength(plaintextLength: Int) -> Int {
    let chunks = plaintextLength / chunkSize + 1
    return prefixLength + streamHeaderLength + plaintextLength + chunks * chunkOverhead
  }

  /// The size of a version-2 blob whose payload is `payloadLength` bytes.
  static func paddedBlobLength(payloadLength: Int) -> Int {
    blobLength(plaintextLength: Padme.paddedLength(payloadLength))
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
