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
    let existing = Vault.exists(at: path) ? try Vault.open(at: path) : nil
    if let existing, let kdf, kdf.opsLimit != existing.kdf.opsLimit || kdf.memLimit != existing.kdf.memLimit {
      throw VaultError.invalidArgument(
        "the vault at '\(path)' already exists with other KDF limits; --kdf applies only to a new vault")
    }
    let password = try options.password(prompt: "New password: ", confirm: true)
    let vault = try existing ?? Vault.create(at: path, kdf: KDFParameters(preset: kdf ?? .moderate))
    let recoveryKey = try vault.createSpace(password: password)
    printLine(
      existing == nil ? "created vault at \(path) with a new space" : "created a new space in \(path)")
    PasswordAdvice.give(for: password, recoveryKeyFollows: true)
    RecoveryKeyNotice.show(recoveryKey)
  }
}
