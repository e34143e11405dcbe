import Foundation

/// Where the vault is when no folder is given: `$VAULT_DIR`, else
/// `${XDG_DATA_HOME:-~/.local/share}/vault` (an empty variable counts as unset).
public enum DefaultVaultFolder {
  public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let directory = environment["VAULT_DIR"], !directory.isEmpty { return directory }
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    return dataHome + "/vault"
  }
}
