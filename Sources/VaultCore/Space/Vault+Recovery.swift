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
    let space = try spaceRecovered(with: wrappingKey)
    let spacePath = space.directory
    let new = try newPassword()
    let newKeys = try passwordKeys(for: new)
    try refuseTakenPassword(new, keys: newKeys, movingFrom: spacePath)
    try space.prepareForWriting()
    try space.moveToPassword(newKeys, vaultPath: path)
  }

  /// Makes a new recovery key for the space of `password`; the space's old one no longer
  /// opens it once this returns.
  public func makeRecoveryKey(password: Password) throws -> RecoveryKey {
    let space = try unlock(password: password, access: .write)
    return try space.makeRecoveryKey()
  }

  /// The space, opened to write, whose `recovery` file the recovery key's `wrappingKey`
  /// unwraps and whose journal opens with the key it holds. No list of spaces exists:
  /// every folder named like a space is tried, which costs one small read and one failed
  /// decryption per space, and tells nothing about which space has a recovery key (they
  /// all do). A folder whose file unwraps but whose journal refuses the key (a copy of
  /// the file planted in another folder) is passed over, so that it cannot hide the real
  /// space; its error is thrown only when no folder opens.
  func spaceRecovered(with wrappingKey: SecureBytes) throws -> Space {
    var firstProblem: Error?
    for name in try listVaultFolder(path).sorted() where Self.isSpaceFolderName(name) {
      let folder = path + "/" + name
      guard isDirectory(folder), Space.unwrapRecoveryFile(in: folder, with: wrappingKey) != nil else {
        continue
      }
      do {
        return try Space(directory: folder, recoveryWrappingKey: wrappingKey)
      } catch {
        if firstProblem == nil { firstProblem = error }
      }
    }
    throw firstProblem ?? VaultError.noSpaceForRecoveryKey
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
