import Foundation

/// A space's recovery key (docs/FORMAT.md, "Recovery key"): its `recovery` file holds the
/// master key wrapped by the recovery key. It sits beside `key`, so it moves with the
/// folder when the password changes, and a password change never has to rewrite it.
extension Space {
  static let recoveryFile = "recovery"

  /// Whether the space has a `recovery` file: spaces made before recovery keys get one at
  /// their next password change.
  var hasRecoveryKey: Bool { fileExists(directory + "/" + Self.recoveryFile) }

  /// Writes the `recovery` file of `key` into `folder` (the space's folder, under the
  /// writer's lock), replacing any earlier one in one rename: before it, only the old key
  /// opens the space; after it, only `key`.
  static func writeRecoveryFile(
    for key: RecoveryKey, master: MasterKey, in folder: String, syncFolder: Bool = true
  ) throws {
    let wrappingKey = key.wrappingKey()
    let file = try TemporaryFile(in: folder)
    try file.write(KeyWrap.wrap(master, with: wrappingKey, magic: KeyWrap.recoveryMagic))
    try file.replace(folder + "/" + recoveryFile, syncFolder: syncFolder)
  }

  /// Makes a new recovery key for this space, opened to write; the old one, if any, no
  /// longer opens it once this returns.
  func makeRecoveryKey() throws -> RecoveryKey {
    precondition(access == .write, "a new recovery key needs the space's exclusive lock")
    let key = RecoveryKey.generate()
    try Self.writeRecoveryFile(for: key, master: master, in: directory)
    return key
  }

  /// The master key in the `recovery` file of the space folder `directory`, if the
  /// recovery key's `wrappingKey` unwraps it.
  static func unwrapRecoveryFile(in directory: String, with wrappingKey: SecureBytes) -> MasterKey? {
    guard let file = try? readWholeFile(directory + "/" + recoveryFile, limit: 4096) else { return nil }
    return KeyWrap.unwrap(file, with: wrappingKey, magic: KeyWrap.recoveryMagic)
  }

  /// Opens the space in `directory` to write with the master key its `recovery` file
  /// holds, read again under the lock. The space's journal (or index) must open with that
  /// key: a `recovery` file copied in from another space would otherwise hand this
  /// folder another space's key. Without the password, a password change cut short is
  /// not settled here; the caller moves the space to a new password anyway.
  convenience init(directory: String, recoveryWrappingKey: SecureBytes) throws {
    let lock = try DirectoryLock(path: directory, mode: .exclusive)
    guard let master = Self.unwrapRecoveryFile(in: directory, with: recoveryWrappingKey) else {
      throw VaultError.noSpaceForRecoveryKey
    }
    try self.init(directory: directory, master: master, wrappingKey: nil, access: .write, lock: lock)
    if let indexDamage { throw indexDamage }
    // An empty Journal folder opens with any key: a folder planted beside the space, with
    // a copy of its `recovery` file, would otherwise take the recovery for itself.
    if formatVersion == 2, journal?.hasAuthenticatedContent != true { throw VaultError.noSpaceForRecoveryKey }
  }
}
