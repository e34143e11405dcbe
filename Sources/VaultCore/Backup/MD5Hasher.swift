import CGLib

/// An MD5 computed piece by piece, by glib's GChecksum: libsodium has no MD5, and glib is
/// in both of vault's processes already (under chafa, and under FFmpeg and libheif).
final class MD5Hasher {
  private let checksum: OpaquePointer

  init() {
    checksum = g_checksum_new(G_CHECKSUM_MD5)
  }

  deinit {
    g_checksum_free(checksum)
  }

  func update(_ bytes: UnsafeRawBufferPointer) {
    guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
    g_checksum_update(checksum, start.assumingMemoryBound(to: guchar.self), gssize(bytes.count))
  }

  /// The MD5 of everything given, as 32 lowercase hex digits.
  func hexDigest() -> String {
    String(cString: g_checksum_get_string(checksum))
  }
}
