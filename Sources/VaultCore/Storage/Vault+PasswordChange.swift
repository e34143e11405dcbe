import Foundation

extension Vault {
  /// Changes the password of the space that `current` opens to the one `newPassword`
  /// gives, without re-encrypting anything: the master key is wrapped by the new password
  /// and the space's folder takes the new password's name (`Space.moveToPassword`).
  /// `newPassword` is called once the current password is known to open a space, so that
  /// nobody types a new password twice for nothing. Both keys are derived before the space
  /// is locked, so that other commands wait only for the renames. Refused, with nothing
  /// changed, when the new password is the current one or already opens another space.
  public func changePassword(from current: Password, to newPassword: () throws -> Password) throws {
    let (currentKeys, spacePath) = try spaceKeys(for: current)
    let new = try newPassword()
    let newKeys = try passwordKeys(for: new)
    if path + "/" + newKeys.spaceTag == spacePath { throw VaultError.newPasswordIsCurrent }
    if fileExists(path + "/" + newKeys.spaceTag) { throw VaultError.newPasswordOpensAnotherSpace }
    // As in `createSpace`: a format-1 space made with the new password as typed would be
    // hidden for good behind this one. The current space itself may be that one, moving
    // to the normalized form of its own password.
    if let asTyped = new.asTyped {
      let typedPath = path + "/" + (try passwordKeys(for: asTyped)).spaceTag
      if typedPath != spacePath && fileExists(typedPath) { throw VaultError.newPasswordOpensAnotherSpace }
    }
    let space = try Space(directory: spacePath, wrappingKey: currentKeys.wrappingKey, access: .write)
    try space.prepareForWriting()
    try space.moveToPassword(newKeys, vaultPath: path)
  }

  /// The keys of `password` and its space's folder; a password not in NFC is tried as
  /// typed too (see `unlock`).
  func spaceKeys(for password: Password) throws -> (PasswordKeys, String) {
    let keys = try passwordKeys(for: password)
    let spacePath = path + "/" + keys.spaceTag
    guard isDirectory(spacePath) else {
      if let asTyped = password.asTyped { return try spaceKeys(for: asTyped) }
      throw VaultError.noSpaceForPassword
    }
    return (keys, spacePath)
  }
}
