import Foundation

/// The vault's side of recovery keys (docs/FORMAT.md, "Recovery key").
extension Vault {
  /// Moves the space that `key` recovers to the password `newPassword` gives, as `vault
  /// passwd` would (`Space.moveToPassword`): the master key is wrapped by the new password
  /// and the folder renamed, so the old password opens nothing and the new one opens
  /// every photo, album and selection. The recovery key keeps working. `newPassword` is
  /// called once the key is known to open a space. Refused, with nothing changed, when the
  /// new password already opens a space (this one included), and when the key opens more
  /// than one folder with a key file and `folder` (a folder's name in the vault) does not
  /// say which (`recoveryKeyOpensSeveralFolders`).
  public func recover(with key: RecoveryKey, folder: String? = nil, newPassword: () throws -> Password) throws
  {
    let wrappingKey = key.wrappingKey()
    let space = try spaceRecovered(with: wrappingKey, folder: folder)
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
  /// unwraps and whose journal opens with the key it holds; only the folder named `folder`,
  /// when given. No list of spaces exists: every folder named like a space is tried, which
  /// costs one small read and one failed decryption per space, and tells nothing about
  /// which space has a recovery key (they all do). A folder whose file unwraps but whose
  /// journal refuses the key (a copy of the file planted in another folder) is passed
  /// over, so that it cannot hide the real space; its error is thrown only when no folder
  /// opens.
  ///
  /// Folders the key opens are copies of one space. One without a key file is what a sync
  /// engine left of a password change, which the space's writer takes in
  /// (`Space.adoptFilesLeftByRenames`). Of those with a key, none is chosen silently: which
  /// copy is current is not something the vault can tell, so more than one is refused.
  func spaceRecovered(with wrappingKey: SecureBytes, folder: String? = nil) throws -> Space {
    var firstProblem: Error?
    var opened: [Space] = []
    for name in try listVaultFolder(path).sorted() where Self.isSpaceFolderName(name) {
      let candidate = path + "/" + name
      guard folder.map({ Self.names($0, candidate) }) ?? true, isDirectory(candidate),
        Space.unwrapRecoveryFile(in: candidate, with: wrappingKey) != nil
      else { continue }
      do {
        opened.append(try Space(directory: candidate, recoveryWrappingKey: wrappingKey))
      } catch {
        if firstProblem == nil { firstProblem = error }
      }
    }
    let keyed = opened.filter { Space.hasKeyFile($0.directory) }
    if keyed.count > 1 { throw VaultError.recoveryKeyOpensSeveralFolders(keyed.map(RecoverableFolder.init)) }
    // The others are let go (with their locks) on return, so that the writer can take in
    // those without a key.
    guard let space = keyed.first ?? opened.first else {
      if let folder { throw VaultError.noSuchRecoverableFolder(folder) }
      throw firstProblem ?? VaultError.noSpaceForRecoveryKey
    }
    return space
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
