import ArgumentParser
import Foundation
import VaultCore

/// Where the vault is: all that a command needing no password (`vault lock`) takes.
struct VaultLocation: ParsableArguments {
  @Option(
    name: .customLong("vault"),
    help: ArgumentHelp(
      "The vault folder (default: $VAULT_DIR, else ${XDG_DATA_HOME:-~/.local/share}/vault).",
      valueName: "path"),
    completion: .directory)
  var vaultPath: String?

  /// The vault folder this invocation uses.
  var resolvedVaultPath: String {
    if let vaultPath, !vaultPath.isEmpty { return vaultPath }
    return DefaultVaultFolder.path()
  }

  func openVault() throws -> Vault {
    let path = resolvedVaultPath
    SyncEngineMarks.openedVault.withLock { $0 = path }
    return try Vault.open(at: path)
  }
}

/// Where the vault is and how the password is given; shared by every command.
struct VaultOptions: ParsableArguments {
  @OptionGroup var location: VaultLocation

  @Option(
    help: ArgumentHelp(
      "Read the password from the first line of this file, or of standard input for -.",
      valueName: "file"),
    completion: .file())
  var passwordFile: String?

  /// The vault folder this invocation uses.
  var resolvedVaultPath: String { location.resolvedVaultPath }

  /// The password: --password-file, else $VAULT_PASSWORD, else a prompt on the terminal.
  func password(prompt: String = "Password: ", confirm: Bool = false) throws -> Password {
    try PasswordInput.password(file: passwordFile, prompt: prompt, confirm: confirm)
  }

  func openVault() throws -> Vault {
    try location.openVault()
  }

  /// What opens the space: --password-file or $VAULT_PASSWORD when given (they name a
  /// space explicitly), else the session key `vault unlock` kept for this vault (unless
  /// `allowSessionKey` is false), else the password asked on the terminal.
  func credential(for vault: Vault, allowSessionKey: Bool = true) throws -> SpaceCredential {
    if allowSessionKey && passwordFile == nil && !PasswordInput.hasEnvironmentPassword {
      switch SessionKeyring.lookUp(for: vault) {
      case .found(let key):
        return .sessionKey(key)
      case .droppedStale:
        Self.warnStaleSessionKeyDropped()
      case .none:
        break
      }
    }
    return .password(try password())
  }

  /// Unlocks the space of `credential`. A session key found stale once the space is locked
  /// (changed since the look-up, or an index it does not open) is dropped with a warning,
  /// and the password asked for instead; `credential` then says so. Folders and files that a
  /// password change on another copy left and that could not be taken into the space are
  /// named, one warning each.
  func unlock(_ vault: Vault, with credential: inout SpaceCredential, access: Space.Access) throws -> Space {
    let space: Space
    do {
      space = try vault.unlock(credential, access: access)
    } catch VaultError.staleSessionKey {
      SessionKeyring.drop(for: vault)
      Self.warnStaleSessionKeyDropped()
      credential = .password(try password())
      space = try vault.unlock(credential, access: access)
    }
    for problem in space.leftoversNotTakenIn { Diagnostics.warning(problem.description) }
    ExpiredNames.warn(space)
    return space
  }

  private static func warnStaleSessionKeyDropped() {
    Diagnostics.warning(VaultError.staleSessionKey.description + "; it was dropped")
  }

  /// Opens the vault and unlocks the space of the password or session key (of the password
  /// only, unless `allowSessionKey`). Unless `allowDamagedIndex`, a damaged index is an
  /// error that points to `vault verify --repair`.
  func unlock(
    _ access: Space.Access, allowDamagedIndex: Bool = false, allowSessionKey: Bool = true,
    expiringTrash: Bool = true
  ) throws -> Space {
    let vault = try openVault()
    vault.expiresTrash = expiringTrash
    var credential = try credential(for: vault, allowSessionKey: allowSessionKey)
    let space = try unlock(vault, with: &credential, access: access)
    if !allowDamagedIndex { try space.requireIndex() }
    // Readers cannot tell a write cut short from a copy still being synced or a cut file:
    // they say so, since what the torn part held is not shown.
    for path in space.tornSegments {
      Diagnostics.warning(
        "'\(path)' ends in an incomplete record (a write cut short, or a copy still being synced); "
          + "its whole records are shown; 'vault verify' says more")
    }
    return space
  }
}

/// Photo numbers, ranges or ids, or --selected, or --all; shared by show, delete, export
/// and album add and remove. Numbers are places in the list the command's `ScopeOptions`
/// make.
struct PhotoChoiceOptions: ParsableArguments {
  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      "Photos by number, range or id, as `vault list` numbers them with the same --album, --since, --until and --sort (e.g. 2 5-7, 2-3,9, 100-, or an id prefix).",
      valueName: "photos"))
  var photos: [String] = []

  @Flag(help: "Act on the selected photos.")
  var selected = false

  @Flag(help: "Act on every photo (of the album, or between the dates, given).")
  var all = false

  func validate() throws {
    let ways = [!photos.isEmpty, selected, all].filter { $0 }.count
    if ways == 0 { throw ValidationError("Name photos by number or id, or pass --selected or --all.") }
    if ways > 1 { throw ValidationError("Use only one of: photo numbers or ids, --selected, --all.") }
    try validatePhotoTerms(photos)
  }

  /// The choice, parsed (without the space: numbers are checked against it later).
  var choice: PhotoChoice {
    get throws {
      if selected { return .selected }
      if all { return .all }
      return .photos(try PhotoSelector.parse(photos))
    }
  }
}

/// Refuses photo terms that do not parse, before the password is asked for.
func validatePhotoTerms(_ photos: [String]) throws {
  do {
    _ = try PhotoSelector.parse(photos)
  } catch let error as VaultError {
    throw ValidationError(error.description)
  }
}
