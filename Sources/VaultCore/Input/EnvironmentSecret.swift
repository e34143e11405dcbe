import Foundation

/// A secret given in an environment variable (`VAULT_PASSWORD`), taken out of the
/// environment once, at start: its bytes are wiped in place and the variable is unset, so
/// that neither /proc/<pid>/environ nor a child process sees it.
public enum EnvironmentSecret {
  /// The variable's bytes, which the caller wipes; nil when it is unset or empty.
  public static func take(_ name: String) -> [UInt8]? {
    guard let value = getenv(name) else { return nil }
    let length = strlen(value)
    // Copied once, straight into the array handed out: a copy made on the way (a [CChar]
    // mapped to bytes) would be freed without being wiped.
    let bytes = length > 0 ? Array(UnsafeRawBufferPointer(start: value, count: length)) : nil
    memset(value, 0, length)
    unsetenv(name)
    return bytes
  }
}
