import Foundation
import VaultCore
import VaultTerminal

/// Where `vault recover` gets the recovery key: the first line of `--recovery-key-file`
/// (or of standard input for `-`), else asked on the controlling terminal, with echo off.
enum RecoveryKeyInput {
  /// Tries on the terminal before giving up: a typo caught by the key's check is asked again.
  static let attempts = 3

  static func recoveryKey(file: String?) throws -> RecoveryKey {
    if let file, file != "-" || isatty(STDIN_FILENO) == 0 {
      var line = try SecretLineFile.firstLine(of: file, kind: "recovery key file")
      defer { line.wipe() }
      do {
        return try RecoveryKey(typed: line)
      } catch VaultError.invalidRecoveryKey(let reason, _) {
        throw VaultError.invalidRecoveryKey(reason: reason, source: "in \(SecretLineFile.displayName(file))")
      }
    }
    for attempt in 1...attempts {
      switch Terminal.readSecret(prompt: "Recovery key: ") {
      case .line(var typed)?:
        defer { typed.wipe() }
        do {
          return try RecoveryKey(typed: typed)
        } catch let error as VaultError {
          // Said once: the last failure is the command's error.
          if attempt == attempts { throw error }
          Diagnostics.error(error.description)
        }
      case .endOfInput?:
        throw VaultError.invalidArgument("no recovery key was entered")
      case nil:
        throw VaultError.invalidArgument(
          "no recovery key: use --recovery-key-file FILE, or run vault on a terminal")
      }
    }
    preconditionFailure("the last attempt returns or throws")
  }
}
