import VaultCore

/// Said when a password is set (`init`, `passwd`): a short password is easy to guess from
/// a copy of the vault, and nothing can recover a forgotten one.
enum PasswordAdvice {
  /// Passwords shorter than this get a warning.
  static let shortPassword = 8

  static func give(for password: Password) {
    if password.characterCount < shortPassword {
      Diagnostics.warning(
        "the password has fewer than \(shortPassword) characters; anyone with a copy of the vault can try to guess it"
      )
    }
    Diagnostics.hint(
      "a forgotten password cannot be recovered: nothing, not even vault, can open this space without it")
  }
}
