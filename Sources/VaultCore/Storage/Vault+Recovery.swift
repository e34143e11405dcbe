import Foundation

/// The vault's side of recovery keys (docs/FORMAT.md, "Recovery key").
extension Vault {
  /// Moves the space that `key` recovers to the password `newPassword` gives, as `vault
  /// passwd` would (`Space.moveToPassword`): the master key is wrapped by the new password
  /// and the folder renamed, so the old password opens nothing and the new one opens
  /// every photo, album and selection. The recovery key keeps working. `newPassword` is
  /// called once the key is known to open a space. Refused, with nothing changed, when the
  /// new password already opens a space (this one included).
  public func recover(with key: RecoveryKey, newPassword: () throws -> Password) throws {
    let wrappingKey = key.wrappingKey()
    let spacePath = try spaceFolder(recoveredWith: wrappingKey)
    let new = try newPassword()
    let newKeys = try passwordKeys(for: new)
    try refuseTakenPassword(new, keys: newKeys, movingFrom: spacePath)
    let space = try Space(directory: spacePath, recoveryWrappingKey: wrappingKey)
    try space.prepareForWriting()
    try space.moveToPassword(newKeys, vaultPath: path)
  }

  /// Makes a new recovery key for the space of `password`; the space's old one no longer
  /// opens it once this returns.
  public func makeRecoveryKey(password: Password) throws -> RecoveryKey {
    let space = try unlock(password: password, access: .write)
    return try space.makeRecoveryKey()
  }

  /// The folder of the space whose `recovery` file the recovery key's `wrappingKey`
  /// unwraps. No list of spaces exists: every folder named like a space is tried, which
  /// costs one small read and one failed decryption per space, and tells nothing about
  /// which space has a recovery key (they all do). The file is read again under the
  /// space's lock before it is used.
  func spaceFolder(recoveredWith wrappingKey: SecureBytes) throws -> String {
    for name in try listVaultFolder(path).sorted() where Self.isSpaceFolderName(name) {
      let folder = path + "/" + name
      if isDirectory(folder), Space.unwrapRecoveryFile(in: folder, with: wrappingKey) != nil { return folder }
    }
    throw VaultError.noSpaceForRecoveryKey
  }

  /// Whether a name in the vault folder is a space's: 32 lowercase hex digits.
  static func isSpaceFolderName(_ name: String) -> Bool {
    name.utf8.count == 32 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }

  /// Refuses a new password, before anything changes, when it opens the space at
  /// `current` already or another space (`newPasswordIsCurrent`,
  /// `newPasswordOpensAnotherSpace`).
  func refuseTakenPassword(_ new: Password, keys newKeys: PasswordKeys, movingFrom current: String) throws {
    if path + "/" + newKeys.spaceTag == current { throw VaultError.newPasswordIsCurrent }
    if fileExists(path + "/" + newKeys.spaceTag) { throw VaultError.newPasswordOpensAnotherSpace }
    // As in `createSpace`: a format-1 space made with the new password as typed would be
    // hidden for good behind this one. The current space itself may be that one, moving
    // to the normalized form of its own password.
    if let asTyped = new.asTyped {
      let typedPath = path + "/" + (try passwordKeys(for: asTyped)).spaceTag
      if typedPath != current && fileExists(typedPath) { throw VaultError.newPasswordOpensAnotherSpace }
    }
  }
}
