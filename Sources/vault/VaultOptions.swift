import ArgumentParser
import Foundation
import VaultCore

/// Where the vault is and how the password is given; shared by every command.
struct VaultOptions: ParsableArguments {
  @Option(
    name: .customLong("vault"),
    help: ArgumentHelp(
      "The vault folder (default: $VAULT_DIR, else ${XDG_DATA_HOME:-~/.local/share}/vault).",
      valueName: "path"))
  var vaultPath: String?

  @Option(
    help: ArgumentHelp(
      "Read the password from the first line of this file (when $VAULT_PASSWORD is not set).",
      valueName: "file"))
  var passwordFile: String?

  /// The vault folder this invocation uses.
  var resolvedVaultPath: String {
    let environment = ProcessInfo.processInfo.environment
    if let vaultPath, !vaultPath.isEmpty { return vaultPath }
    if let directory = environment["VAULT_DIR"], !directory.isEmpty { return directory }
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    return dataHome + "/vault"
  }

  /// The password: $VAULT_PASSWORD, else --password-file, else a prompt on the terminal.
  func password(prompt: String = "Password: ", confirm: Bool = false) throws -> Password {
    if var text = ProcessInfo.processInfo.environment["VAULT_PASSWORD"].map({ Array($0.utf8) }) {
      defer { text.wipe() }
      return try Password(utf8: text)
    }
    if let passwordFile {
      var contents: [UInt8]
      do {
        contents = Array(try Data(contentsOf: URL(fileURLWithPath: passwordFile)))
      } catch {
        throw VaultError.io(path: passwordFile, reason: "cannot read password file")
      }
      defer { contents.wipe() }
      var line = Array(contents.prefix { $0 != 0x0A })
      defer { line.wipe() }
      if line.last == 0x0D { line.removeLast() }
      do {
        return try Password(utf8: line)
      } catch VaultError.invalidPassword(let reason) {
        throw VaultError.invalidPassword(reason: "the first line of '\(passwordFile)': \(reason)")
      }
    }
    guard var first = try Terminal.readSecret(prompt: prompt) else {
      throw VaultError.invalidArgument(
        "no password: set VAULT_PASSWORD, use --password-file FILE, or run vault on a terminal")
    }
    defer { first.wipe() }
    let password = try Password(utf8: first)
    if confirm {
      guard var second = try Terminal.readSecret(prompt: "Repeat password: ") else {
        throw VaultError.invalidArgument("no password confirmation")
      }
      defer { second.wipe() }
      guard try password.matches(Password(utf8: second)) else {
        throw VaultError.invalidArgument("the passwords do not match; nothing was changed")
      }
    }
    return password
  }

  func openVault() throws -> Vault {
    try Vault.open(at: resolvedVaultPath)
  }

  /// Opens the vault and unlocks the space of the password. Unless `allowDamagedIndex`,
  /// a damaged index is an error that points to `vault verify --repair`.
  func unlock(_ access: Space.Access, allowDamagedIndex: Bool = false) throws -> Space {
    let vault = try openVault()
    let space = try vault.unlock(password: try password(), access: access)
    if !allowDamagedIndex { try space.requireIndex() }
    return space
  }
}

/// Photo numbers with --all, --selected, shared by delete and export.
struct PhotoChoice: ParsableArguments {
  @Argument(help: "Photo numbers or ranges, as `vault list` shows them (e.g. 2 5-7).")
  var photos: [String] = []

  @Flag(help: "Act on the selected photos.")
  var selected = false

  @Flag(help: "Act on every photo.")
  var all = false

  func validate() throws {
    let ways = [!photos.isEmpty, selected, all].filter { $0 }.count
    if ways == 0 { throw ValidationError("Name photos by number, or pass --selected or --all.") }
    if ways > 1 { throw ValidationError("Use only one of: photo numbers, --selected, --all.") }
  }
}
