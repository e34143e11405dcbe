import Foundation

/// A space's side of `vault passwd` (docs/FORMAT.md, "Changing the password"): the master
/// key is wrapped again and the folder renamed; no photo is re-encrypted. Every step is
/// ordered so that a kill at any moment leaves exactly one of the two passwords opening the
/// space.
extension Space {
  /// The master key from `key`, or else from `key-next`: a password change cut between its
  /// two renames leaves the folder named for the new password while the key that this
  /// password unwraps is still in `key-next`.
  static func unwrapMasterKey(in directory: String, with wrappingKey: SecureBytes) throws -> MasterKey {
    let keyPath = directory + "/" + keyFile
    if let master = KeyWrap.unwrap(try readWholeFile(keyPath, limit: 4096), with: wrappingKey) {
      return master
    }
    let nextPath = directory + "/" + nextKeyFile
    if fileExists(nextPath), let next = try? readWholeFile(nextPath, limit: 4096),
      let master = KeyWrap.unwrap(next, with: wrappingKey)
    {
      return master
    }
    throw VaultError.damagedKey(path: keyPath)
  }

  /// Finishes a password change that was cut short, under the writer's exclusive lock (no
  /// change can be under way): a `key-next` that this password unwraps was written for this
  /// folder's name and becomes `key`; one beside a `key` that this password unwraps was
  /// written for a password that the folder never took, and goes. Anything else (a damaged
  /// key) is left for `vault verify`.
  func settlePasswordChange() throws {
    guard let wrappingKey else { return }
    let nextPath = directory + "/" + Self.nextKeyFile
    let keyPath = directory + "/" + Self.keyFile
    guard fileExists(nextPath) else { return }
    if KeyWrap.unwrap(try readWholeFile(keyPath, limit: 4096), with: wrappingKey) != nil {
      guard unlink(nextPath) == 0 else { throw VaultError.posix(nextPath) }
    } else if let next = try? readWholeFile(nextPath, limit: 4096),
      KeyWrap.unwrap(next, with: wrappingKey) != nil
    {
      guard rename(nextPath, keyPath) == 0 else { throw VaultError.posix(keyPath) }
    } else {
      return
    }
    try syncDirectory(directory)
  }

  /// Moves this space (opened to write) to the password whose keys are `newKeys`, as the
  /// folder `<vault>/<tag>`: writes `key-next` (the master key wrapped by the new
  /// password) and syncs it and the folder; renames the folder and syncs the vault folder;
  /// renames `key-next` to `key` and syncs the folder. Before the folder's rename only the
  /// old password opens the space (its `key` is untouched); after it only the new one (the
  /// folder has its name, and the key it unwraps is in `key-next`, then in `key`). The
  /// space must not be used afterwards: its folder has another name.
  func moveToPassword(_ newKeys: PasswordKeys, vaultPath: String) throws {
    precondition(access == .write, "a password change needs the space's exclusive lock")
    // Again under the lock: an offload may have run since the caller looked.
    try Self.refuseRenameWithOffloadedOriginals(directory)
    let target = vaultPath + "/" + newKeys.spaceTag
    let nextPath = directory + "/" + Self.nextKeyFile
    let file = try TemporaryFile(in: directory)
    try file.write(KeyWrap.wrap(master, with: newKeys.wrappingKey))
    try file.replace(nextPath)
    // Not renamed over anything: a folder of that name, even one made since the caller
    // looked, is another space (a space's folder is never empty, and rename(2) does not
    // replace a folder that is not).
    var failure: Int32 = EEXIST
    if !fileExists(target) { failure = rename(directory, target) == 0 ? 0 : errno }
    if failure != 0 {
      unlink(nextPath)
      try? syncDirectory(directory)
      if failure == EEXIST || failure == ENOTEMPTY || failure == ENOTDIR {
        throw VaultError.newPasswordOpensAnotherSpace
      }
      throw VaultError.posix(target, failure)
    }
    try syncDirectory(vaultPath)
    removeWriterMark(movedTo: target)
    // The change is made: the new password opens the space whether or not this rename is
    // done, and if it is not, the next writer does it (`settlePasswordChange`).
    if rename(target + "/" + Self.nextKeyFile, target + "/" + Self.keyFile) == 0 {
      try? syncDirectory(target)
    }
  }
}
