import ArgumentParser
import VaultCore

struct PasswdCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "passwd",
    abstract: "Change the password of the space.",
    discussion: """
      Asks for the current password, then for the new one twice (or reads it from \
      --new-password-file). No photo is re-encrypted: the space's key is sealed with the new \
      password and its folder renamed, so it is quick whatever the size of the space. A new \
      password that already opens another space is refused. A crash or a kill at any moment \
      leaves exactly one of the two passwords opening the space, never neither. Other \
      commands wait while it runs; one still open on the space (vault view, vault serve) \
      stops with an error at its next change. The space's recovery key keeps working; a \
      space made before recovery keys gets one, printed on standard output.
      """)

  @OptionGroup var options: VaultOptions

  @Option(
    help: ArgumentHelp(
      "Read the new password from the first line of this file, or of standard input for -.",
      valueName: "file"),
    completion: .file())
  var newPasswordFile: String?

  func validate() throws {
    if options.passwordFile == "-" && newPasswordFile == "-" {
      throw ValidationError("Only one of --password-file and --new-password-file can read standard input.")
    }
  }

  func run() throws {
    let vault = try options.openVault()
    let current = try options.password(prompt: "Current password: ")
    var changedTo: Password?
    let recovery = try vault.changePassword(from: current) {
      let new = try PasswordInput.newPassword(file: newPasswordFile)
      changedTo = new
      return new
    }
    // A session key names the space's old folder (a look-up would drop it as stale
    // anyway), but a changed password should end the unlocked session at once.
    if SessionKeyring.drop(for: vault) {
      printLine("dropped this vault's session key ('vault unlock' keeps a new one)")
    }
    printLine("changed the password of the space; the old password no longer opens it")
    var madeKey = false
    if case .made = recovery { madeKey = true }
    if let changedTo { PasswordAdvice.give(for: changedTo, recoveryKeyFollows: madeKey) }
    switch recovery {
    case .kept:
      break
    case .made(let key):
      printLine("the space had no recovery key (it was made before them); it has this one now")
      RecoveryKeyNotice.show(key)
    case .notMade(let error):
      Diagnostics.warning("the space still has no recovery key: \(error.description)")
      Diagnostics.hint("'vault recovery-key' makes one")
    }
  }
}
