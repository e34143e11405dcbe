import CSodium

/// Constants of version 3 of the blob format, the seekable one (docs/FORMAT.md, "Seekable
/// blobs"): chunks sealed one by one with XChaCha20-Poly1305 under a nonce made of the
/// blob's random nonce prefix, the chunk's number and whether it is the last chunk, as in
/// age's STREAM. Any chunk decrypts on its own, and none can be moved, dropped, repeated,
/// or cut off or added at the end without failing to authenticate.
enum SeekableBlobFormat {
  static let version: UInt8 = 3
  /// Random per blob: a blob rewritten under the same id and key never reuses a nonce.
  static let noncePrefixLength = 16
  /// The chunk number's bytes in the nonce, big-endian: 2^56 chunks, far beyond any file.
  static let counterLength = 7
  static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
  static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
  /// Plaintext bytes in every chunk but the last; the last holds 1 to chunkSize.
  static let chunkSize = 65536
  static let sealedChunkSize = chunkSize + tagLength
  /// The 6-byte prefix ("VLTB", version, kind), then the nonce prefix.
  static let headerLength = BlobFormat.prefixLength + noncePrefixLength
  /// The trailer's length field at the very end of the plaintext: 4 bytes, big-endian.
  static let trailerLengthSize = 4

  /// The nonce of chunk `index`: the nonce prefix ‖ `index` (7 bytes, big-endian) ‖ 1 for
  /// the last chunk, else 0.
  static func nonce(prefix: [UInt8], index: Int, last: Bool) -> [UInt8] {
    precondition(prefix.count == noncePrefixLength && index >= 0 && index >> (8 * counterLength) == 0)
    var nonce = prefix
    nonce.reserveCapacity(nonceLength)
    for shift in stride(from: 8 * (counterLength - 1), through: 0, by: -8) {
      nonce.append(UInt8(truncatingIfNeeded: index >> shift))
    }
    nonce.append(last ? 1 : 0)
    return nonce
  }

  /// The number of chunks of `plaintextLength` bytes (at least 1 byte: there is always a
  /// trailer length).
  static func chunkCount(plaintextLength: Int) -> Int {
    (plaintextLength + chunkSize - 1) / chunkSize
  }

  /// The size of a blob of `plaintextLength` bytes of plaintext (padding included).
  static func blobLength(plaintextLength: Int) -> Int {
    headerLength + plaintextLength + chunkCount(plaintextLength: plaintextLength) * tagLength
  }

  /// The plaintext length of a payload and trailer: Padmé of all the bytes they take.
  static func plaintextLength(payloadLength: Int, trailerLength: Int) -> Int {
    Padme.paddedLength(payloadLength + trailerLength + trailerLengthSize)
  }

  /// The plaintext length a blob of `fileLength` bytes holds, and its chunk count; nil when
  /// no plaintext has that size (the file is cut inside a chunk's tag, or has no chunk).
  static func plaintextLength(fileLength: Int) -> (plaintext: Int, chunks: Int)? {
    let sealed = fileLength - headerLength
    guard sealed > 0 else { return nil }
    let chunks = (sealed + sealedChunkSize - 1) / sealedChunkSize
    let lastSealed = sealed - (chunks - 1) * sealedChunkSize
    guard lastSealed > tagLength else { return nil }
    return (sealed - chunks * tagLength, chunks)
  }
}
