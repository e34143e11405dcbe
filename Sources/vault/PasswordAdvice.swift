import VaultCore

/// Said when a password is set (`init`, `passwd`, `recover`): a short password is easy to
/// guess from a copy of the vault, and only the recovery key opens a space whose password
/// is forgotten.
enum PasswordAdvice {
  /// Passwords shorter than this get a warning.
  static let shortPassword = 8

  /// `recoveryKeyFollows`: a new recovery key is shown next, with advice of its own.
  static func give(for password: Password, recoveryKeyFollows: Bool = false) {
    if password.characterCount < shortPassword {
      Diagnostics.warning(
        "the password has fewer than \(shortPassword) characters; anyone with a copy of the vault can try to guess it"
      )
    }
    if recoveryKeyFollows { return }
    Diagnostics.hint(
      "if the password is forgotten, only the space's recovery key opens it ('vault recover'); nothing else can"
    )
  }
}
