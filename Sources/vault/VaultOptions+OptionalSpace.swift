import VaultCore

extension VaultOptions {
  /// The space of the password given (--password-file, $VAULT_PASSWORD) or of the session
  /// key; nil when neither is: a check or a repair from a backup never asks for one.
  func spaceIfCredentialGiven() throws -> Space? {
    let given = passwordFile != nil || PasswordInput.hasEnvironmentPassword
    guard given || Vault.exists(at: resolvedVaultPath) else { return nil }
    let vault = try openVault()
    if !given, case .none = SessionKeyring.lookUp(for: vault, refresh: false) { return nil }
    var credential = try credential(for: vault)
    return try unlock(vault, with: &credential, access: .read)
  }
}
