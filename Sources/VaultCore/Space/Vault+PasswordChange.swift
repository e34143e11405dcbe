import Foundation

extension Vault {
  /// Changes the password of the space that `current` opens to the one `newPassword`
  /// gives, without re-encrypting anything: the master key is wrapped by the new password
  /// and the space's folder takes the new password's name (`Space.moveToPassword`).
  /// `newPassword` is called once the current password is known to open a space, so that
  /// nobody types a new password twice for nothing. Both keys are derived before the space
  /// is locked, so that other commands wait only for the renames. Refused, with nothing
  /// changed, when the new password is the current one or already opens another space.
  /// A space made before recovery keys gets one once its password is changed.
  @discardableResult
  public func changePassword(from current: Password, to newPassword: () throws -> Password) throws
    -> RecoveryKeyOutcome
  {
    let (currentKeys, spacePath) = try spaceKeys(for: current)
    try Space.refuseRenameWithOffloadedOriginals(spacePath)
    let new = try newPassword()
    let newKeys = try passwordKeys(for: new)
    try refuseTakenPassword(new, keys: newKeys, movingFrom: spacePath)
    let space = try Space(directory: spacePath, wrappingKey: currentKeys.wrappingKey, access: .write)
    // Nothing here would name what expiry deleted: the next command that writes does it.
    space.expiresTrash = false
    try space.prepareForWriting()
    let hadRecoveryKey = space.hasRecoveryKey
    try space.moveToPassword(newKeys, vaultPath: path)
    if hadRecoveryKey { return .kept }
    // Made only now, still under the space's lock: written before the move, a key that a
    // failed or killed move never printed would stop the next passwd from making one.
    let key = RecoveryKey.generate()
    do {
      try Space.writeRecoveryFile(for: key, master: space.master, in: path + "/" + newKeys.spaceTag)
      return .made(key)
    } catch let error as VaultError {
      return .notMade(error)
    }
  }

  /// The keys of `password` and its space's folder; a password not in NFC is tried as
  /// typed too (see `unlock`). A folder without a key file opens nothing, and says so: a
  /// sync engine left it when the space's password was changed on another copy (see
  /// `Space.adoptFilesLeftByRenames`), or the file was removed.
  func spaceKeys(for password: Password) throws -> (PasswordKeys, String) {
    let keys = try passwordKeys(for: password)
    let spacePath = path + "/" + keys.spaceTag
    guard isDirectory(spacePath) else {
      if let asTyped = password.asTyped { return try spaceKeys(for: asTyped) }
      throw VaultError.noSpaceForPassword
    }
    guard Space.hasKeyFile(spacePath) else { throw VaultError.spaceKeyMissing(folder: spacePath) }
    return (keys, spacePath)
  }
}

/// What a password change did about the space's recovery key.
public enum RecoveryKeyOutcome {
  /// The space had one, and it still opens the space.
  case kept
  /// The space had none (it was made before recovery keys): this one opens it now.
  case made(RecoveryKey)
  /// The space had none, and making one failed once the password was already changed.
  case notMade(VaultError)
}
