import Foundation

/// The vault's side of recovery keys (docs/FORMAT.md, "Recovery key").
extension Vault {
  /// Moves the space that `key` recovers to the password `newPassword` gives, as `vault
  /// passwd` would (`Space.moveToPassword`): the master key is wrapped by the new password
  /// and the folder renamed, so the old password opens nothing and the new one opens
  /// every photo, album and selection. The recovery key keeps working. `newPassword` is
  /// called once the key is known to open a space. Refused, with nothing changed, when the
  /// new password already opens a space (this one included), when the recovery files of
  /// more than one folder with a key file unwrap with the key and `folder` (a folder's
  /// name in the vault) does not say which (`recoveryKeyOpensSeveralFolders`), and with
  /// its reason when the one copy cannot be opened (`spaceRecovered`).
  public func recover(with key: RecoveryKey, folder: String? = nil, newPassword: () throws -> Password) throws
  {
    let wrappingKey = key.wrappingKey()
    let space = try spaceRecovered(with: wrappingKey, folder: folder)
    let spacePath = space.directory
    try Space.refuseRenameWithOffloadedOriginals(spacePath)
    let new = try newPassword()
    let newKeys = try passwordKeys(for: new)
    try refuseTakenPassword(new, keys: newKeys, movingFrom: spacePath)
    // Nothing here would name what expiry deleted: the next command that writes does it.
    space.expiresTrash = false
    try space.prepareForWriting()
    try space.moveToPassword(newKeys, vaultPath: path)
  }

  /// Makes a new recovery key for the space of `password`; the space's old one no longer
  /// opens it once this returns.
  public func makeRecoveryKey(password: Password) throws -> RecoveryKey {
    // The space is not handed back, so nothing would name what expiry deleted: the next
    // command that writes does it.
    let expiring = expiresTrash
    expiresTrash = false
    defer { expiresTrash = expiring }
    let space = try unlock(password: password, access: .write)
    return try space.makeRecoveryKey()
  }

  /// The space, opened to write, whose `recovery` file the recovery key's `wrappingKey`
  /// unwraps and whose journal opens with the key it holds; only the folder named `folder`,
  /// when given. No list of spaces exists: every folder named like a space is tried, which
  /// costs one small read and one failed decryption per space, and tells nothing about
  /// which space has a recovery key (they all do). A folder whose file unwraps but whose
  /// journal proves it holds nothing of the key's space (a copy of the file planted in
  /// another folder) is passed over, so that it cannot hide the real space.
  ///
  /// Folders whose file unwraps are copies of one space. One without a key file is what a
  /// sync engine left of a password change, which the space's writer takes in
  /// (`Space.adoptFilesLeftByRenames`). Of those with a key, none is chosen silently: which
  /// copy is current is not something the vault can tell, so more than one is refused,
  /// whether each opens or not; and one that does not open (another command holds it, its
  /// index is damaged) fails the recovery with its reason rather than leave it to another.
  func spaceRecovered(with wrappingKey: SecureBytes, folder: String? = nil) throws -> Space {
    var keyed: [(path: String, opened: Result<Space, Error>)] = []
    var keyless: [Result<Space, Error>] = []
    for name in try listVaultFolder(path).sorted() where Self.isSpaceFolderName(name) {
      let candidate = path + "/" + name
      guard folder.map({ Self.names($0, candidate) }) ?? true, isDirectory(candidate),
        Space.unwrapRecoveryFile(in: candidate, with: wrappingKey) != nil
      else { continue }
      let opened = Result { try Space(directory: candidate, recoveryWrappingKey: wrappingKey) }
      if case .failure(VaultError.noSpaceForRecoveryKey) = opened { continue }
      if Space.hasKeyFile(candidate) { keyed.append((candidate, opened)) } else { keyless.append(opened) }
    }
    if keyed.count > 1 { throw VaultError.recoveryKeyOpensSeveralFolders(keyed.map(Self.recoverableFolder)) }
    // The others are let go (with their locks) on return, so that the writer can take in
    // those without a key.
    if let current = keyed.first { return try current.opened.get() }
    if let space = keyless.lazy.compactMap({ try? $0.get() }).first { return space }
    if case .failure(let problem) = keyless.first { throw problem }
    if let folder { throw VaultError.noSuchRecoverableFolder(folder) }
    throw VaultError.noSpaceForRecoveryKey
  }

  /// A keyed folder as `recoveryKeyOpensSeveralFolders` names it: with what it holds, or
  /// why it did not open.
  private static func recoverableFolder(_ folder: (path: String, opened: Result<Space, Error>))
    -> RecoverableFolder
  {
    switch folder.opened {
    case .success(let space): return RecoverableFolder(space)
    case .failure(let error): return RecoverableFolder(path: folder.path, notOpenedBecause: "\(error)")
    }
  }

  /// Whether `given` (a folder's name, or a path ending in it) names the space folder at
  /// `folder`.
  private static func names(_ given: String, _ folder: String) -> Bool {
    let name = given.split(separator: "/").last.map(String.init) ?? given
    return name == URL(fileURLWithPath: folder).lastPathComponent
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
