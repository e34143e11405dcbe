import Foundation
import Synchronization
import VaultCore
import VaultTerminal

/// Where a password comes from, in this order: `--password-file` (a file, a pipe, a FIFO,
/// process substitution, or `-` for stdin), then `$VAULT_PASSWORD`, then a prompt on the
/// controlling terminal.
enum PasswordInput {
  /// `$VAULT_PASSWORD`, taken out of the environment at start (EnvironmentSecret says
  /// how). Nil when it is unset or empty.
  private static let environmentPassword = Mutex<[UInt8]?>(nil)

  static func takeEnvironmentPassword() {
    let taken = EnvironmentSecret.take("VAULT_PASSWORD")
    environmentPassword.withLock { $0 = taken }
  }

  /// Whether `$VAULT_PASSWORD` gave a password: like `--password-file`, it names a space
  /// explicitly, so a session key is not used.
  static var hasEnvironmentPassword: Bool { environmentPassword.withLock { $0 != nil } }

  /// The password for this run.
  static func password(file: String?, prompt: String, confirm: Bool) throws -> Password {
    defer { environmentPassword.withLock { $0?.wipe() } }
    // `--password-file -` on a terminal would show the password as it is typed: it is
    // asked for with echo off instead.
    if let file, file != "-" || isatty(STDIN_FILENO) == 0 { return try readFile(file) }
    if var text = environmentPassword.withLock({ $0 }) {
      defer { text.wipe() }
      return try Password(utf8: text)
    }
    let missing = "no password: use --password-file FILE, set VAULT_PASSWORD, or run vault on a terminal"
    if !confirm {
      var typed = try ask(prompt, missing: missing)
      defer { typed.wipe() }
      return try Password(utf8: typed)
    }
    return try askTwice(prompt, "Repeat password: ", missing: missing, mismatch: "the passwords do not match")
  }

  /// A new password (`vault passwd`): the first line of `file`, else asked twice on the
  /// terminal. Never `$VAULT_PASSWORD`, which holds the current one.
  static func newPassword(file: String?) throws -> Password {
    if let file, file != "-" || isatty(STDIN_FILENO) == 0 {
      return try readFile(file, kind: "new password file")
    }
    return try askTwice(
      "New password: ", "Repeat new password: ",
      missing: "no new password: use --new-password-file FILE, or run vault on a terminal",
      mismatch: "the new passwords do not match")
  }

  /// A password typed twice on the terminal; the two must match.
  private static func askTwice(_ prompt: String, _ repeatPrompt: String, missing: String, mismatch: String)
    throws -> Password
  {
    var first = try ask(prompt, missing: missing)
    defer { first.wipe() }
    let password = try Password(utf8: first)
    var second = try ask(repeatPrompt, missing: missing)
    defer { second.wipe() }
    guard try password.matches(Password(utf8: second)) else {
      throw VaultError.invalidArgument("\(mismatch); nothing was changed")
    }
    return password
  }

  private static func ask(_ prompt: String, missing: String) throws -> [UInt8] {
    switch Terminal.readSecret(prompt: prompt) {
    case .line(let line)?: return line
    case .endOfInput?: throw VaultError.invalidArgument("no password was entered")
    case nil: throw VaultError.invalidArgument(missing)
    }
  }

  /// The first line of a password file (without `\n` or `\r\n`) as a password.
  private static func readFile(_ path: String, kind: String = "password file") throws -> Password {
    var line = try SecretLineFile.firstLine(of: path, kind: kind)
    defer { line.wipe() }
    do {
      return try Password(utf8: line)
    } catch VaultError.invalidPassword(let reason) {
      throw VaultError.invalidPassword(
        reason: "the first line of \(SecretLineFile.displayName(path)): \(reason)")
    }
  }
}
