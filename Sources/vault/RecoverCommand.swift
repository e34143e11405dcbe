import ArgumentParser
import VaultCore
import VaultTerminal

struct RecoverCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recover",
    abstract: "Set a new password with the space's recovery key, when the password is forgotten.",
    discussion: """
      Asks for the recovery key that vault init (or passwd, or recovery-key) printed, then \
      for the new password twice; or reads them from --recovery-key-file and \
      --new-password-file. The key may be typed in any case, with or without its spaces and \
      dashes; a typo is caught by its check before anything else is done. Afterwards the \
      new password opens every photo, album and selection of the space, the old password \
      opens nothing, and the recovery key still works. A kill at any moment leaves exactly \
      one password opening the space, and the recovery key. When the key opens several \
      copies of the space kept apart (a restored backup, a sync engine's kept conflict), \
      it names each and changes nothing: --folder names the one to recover.
      """)

  @OptionGroup var location: VaultLocation

  @Option(
    help: ArgumentHelp(
      "Read the recovery key from the first line of this file, or of standard input for -.",
      valueName: "file"),
    completion: .file())
  var recoveryKeyFile: String?

  @Option(
    help: ArgumentHelp(
      "Read the new password from the first line of this file, or of standard input for -.",
      valueName: "file"),
    completion: .file())
  var newPasswordFile: String?

  @Option(
    help: ArgumentHelp(
      "Recover the copy of the space in this folder of the vault, when the recovery key opens several.",
      valueName: "name"))
  var folder: String?

  func validate() throws {
    if recoveryKeyFile == "-" && newPasswordFile == "-" {
      throw ValidationError(
        "Only one of --recovery-key-file and --new-password-file can read standard input.")
    }
  }

  func run() throws {
    // The key is read and checked before the vault is even opened: a typo costs nothing.
    let key = try RecoveryKeyInput.recoveryKey(file: recoveryKeyFile)
    let vault = try location.openVault()
    var changedTo: Password?
    do {
      try vault.recover(with: key, folder: folder) {
        let new = try PasswordInput.newPassword(file: newPasswordFile)
        changedTo = new
        return new
      }
    } catch VaultError.recoveryKeyOpensSeveralFolders(let folders) {
      throw CommandRefusal(
        VaultError.severalFolders(folders.map { $0.described(date: PhotoListing.date) }),
        hint:
          "a restored backup or a sync engine's kept conflict leaves such copies; name the one to go on with "
          + "('vault recover --folder NAME', NAME its last part); the others stay as they are")
    }
    if SessionKeyring.drop(for: vault) {
      printLine("dropped this vault's session key ('vault unlock' keeps a new one)")
    }
    printLine(
      "set a new password for the space; the old password no longer opens it, the recovery key still does")
    if let changedTo { PasswordAdvice.give(for: changedTo) }
  }
}
