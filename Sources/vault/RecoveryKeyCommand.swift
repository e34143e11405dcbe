import ArgumentParser
import VaultCore

struct RecoveryKeyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recovery-key",
    abstract: "Make a new recovery key for the space; the old one stops working.",
    discussion: """
      Asks for the password (a session key from vault unlock is not enough) and prints the \
      new recovery key on standard output. Write it down and keep it apart from the vault: \
      vault recover sets a new password with it. The space's earlier recovery key no longer \
      opens it. A kill at any moment leaves the password and one of the two keys working; if \
      no key was printed, run it again.
      """)

  @OptionGroup var options: VaultOptions

  func run() throws {
    let vault = try options.openVault()
    let password = try options.password()
    let key = try vault.makeRecoveryKey(password: password)
    printLine("made a new recovery key for the space; the old one no longer opens it")
    RecoveryKeyNotice.show(key)
  }
}
