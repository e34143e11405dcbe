import ArgumentParser
import VaultCore

extension KDFParameters.Preset: ExpressibleByArgument {}

struct InitCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "init",
    abstract: "Create the vault if needed, and a new space for a password.",
    discussion: """
      Run it again with another password to make a second, separate space (a decoy). \
      A password that already opens a space changes nothing. Every new space gets its own \
      recovery key, printed once on standard output (a line 'recovery key: …', also when \
      it is not a terminal): keep it apart from the vault; vault recover sets a new \
      password with it.
      """)

  @OptionGroup var options: VaultOptions

  @Option(help: "Key derivation cost of a new vault: interactive, moderate or sensitive (default: moderate).")
  var kdf: KDFParameters.Preset?

  func run() throws {
    let path = options.resolvedVaultPath
    if Vault.exists(at: path) {
      let vault = try Vault.open(at: path)
      if let kdf, kdf.opsLimit != vault.kdf.opsLimit || kdf.memLimit != vault.kdf.memLimit {
        throw VaultError.invalidArgument(
          "the vault at '\(path)' already exists with other KDF limits; --kdf applies only to a new vault")
      }
      let password = try options.password(prompt: "New password: ", confirm: true)
      let recoveryKey = try vault.createSpace(password: password)
      printLine("created a new space in \(path)")
      PasswordAdvice.give(for: password, recoveryKeyFollows: true)
      RecoveryKeyNotice.show(recoveryKey)
    } else {
      let password = try options.password(prompt: "New password: ", confirm: true)
      let vault = try Vault.create(at: path, kdf: KDFParameters(preset: kdf ?? .moderate))
      let recoveryKey = try vault.createSpace(password: password)
      printLine("created vault at \(path) with a new space")
      PasswordAdvice.give(for: password, recoveryKeyFollows: true)
      RecoveryKeyNotice.show(recoveryKey)
    }
  }
}
