import CSodium

/// SHA-256, by libsodium: what a browser fingerprints a server's certificate with, and
/// checks an inline script or style against.
public enum SHA256 {
  public static func hash(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
    crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
    return digest
  }
}
