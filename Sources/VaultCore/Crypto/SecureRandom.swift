/// Random bytes from the operating system's generator, through libsodium, for code outside
/// VaultCore (the upload server's access token).
public enum SecureRandom {
  public static func bytes(_ count: Int) -> [UInt8] {
    Sodium.randomBytes(count)
  }
}
