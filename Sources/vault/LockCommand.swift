import ArgumentParser
import VaultCore

struct LockCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lock",
    abstract: "Drop the session key 'vault unlock' kept for this vault.",
    discussion: """
      The kernel forgets the key at once; commands ask for the password again. With --all, \
      every key vault keeps in this session goes, whatever the vault. Needs no password.
      """)

  /// Only where the vault is: locking needs no password.
  @OptionGroup var options: VaultLocation

  @Flag(help: "Drop the session keys of every vault.")
  var all = false

  func run() throws {
    if all {
      let count = SessionKeyring.dropAll()
      printLine(
        count == 0 ? "no session keys were kept" : "dropped \(count) session key\(count == 1 ? "" : "s")")
      return
    }
    let vault = try options.openVault()
    if SessionKeyring.drop(for: vault) {
      printLine("locked: the session key of this vault was dropped")
    } else {
      // Keys are named by the vault's real path: one unlocked under another path (moved,
      // or another folder) is not found here.
      printLine("no session key was kept for the vault at \(vault.path)")
      Diagnostics.hint("'vault lock --all' drops the session keys of every vault")
    }
  }
}
