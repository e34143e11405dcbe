import Foundation

/// A vault folder: its plain header and one folder per space. Holds no keys itself.
public final class Vault {
  public let path: String
  /// Whether the spaces it unlocks delete expired items of Recently Deleted when they write
  /// (`Space.expiresTrash`).
  public var expiresTrash = true
  public let kdf: KDFParameters

  private init(path: String, kdf: KDFParameters) {
    self.path = path
    self.kdf = kdf
  }

  /// The version of `vault.json` this vault has (every vault so far: 1).
  public var headerVersion: Int { VaultHeader.version }

  public static func exists(at path: String) -> Bool {
    fileExists(path + "/" + VaultHeader.fileName)
  }

  /// Opens the vault at `path`, checking its header.
  public static func open(at path: String) throws -> Vault {
    let headerPath = path + "/" + VaultHeader.fileName
    var info = stat()
    if lstat(headerPath, &info) != 0 {
      // A folder that cannot be read is not a missing vault.
      if errno == ENOENT || errno == ENOTDIR { throw VaultError.vaultNotFound(path: path) }
      throw VaultError.posix(path)
    }
    let header = try VaultHeader.decode(try readWholeFile(headerPath, limit: 64 << 10), path: headerPath)
    return Vault(path: path, kdf: header.kdf)
  }

  /// Makes a new, empty vault at `path` (the folder may exist but must hold no vault).
  public static func create(at path: String, kdf: KDFParameters) throws -> Vault {
    try kdf.validate()
    // A vault inside another one (in a space's folder, say) would look like damage to it.
    var ancestor = parentFolder(path)
    for _ in 0..<64 {
      if fileExists(ancestor + "/" + VaultHeader.fileName) {
        throw VaultError.io(
          path: path, reason: "inside the vault at '\(ancestor)'; choose a folder outside it")
      }
      let next = parentFolder(ancestor)
      if next == ancestor || ancestor == "." { break }
      ancestor = next
    }
    try makeDirectories(path)
    let headerPath = path + "/" + VaultHeader.fileName
    let file = try TemporaryFile(in: path)
    try file.write(try VaultHeader(kdf: kdf).encoded())
    guard try file.moveWithoutReplacing(to: headerPath) else {
      throw VaultError.invalidArgument("a vault already exists at '\(path)'")
    }
    try syncDirectory(path)
    return Vault(path: path, kdf: kdf)
  }

  /// Makes a new space for `password`, with a new recovery key, which is returned (and
  /// stored nowhere in the clear). A password that already opens a space is refused and
  /// nothing changes.
  @discardableResult
  public func createSpace(password: Password) throws -> RecoveryKey {
    let keys = try passwordKeys(for: password)
    let spacePath = path + "/" + keys.spaceTag
    if fileExists(spacePath) { throw VaultError.spaceAlreadyExists }
    // A password typed in another normal form may open a space format 1 made (see
    // `unlock`): a new space would hide it for good.
    if let asTyped = password.asTyped, fileExists(path + "/" + (try passwordKeys(for: asTyped)).spaceTag) {
      throw VaultError.spaceAlreadyExists
    }
    // Built under a temporary name and renamed into place, so a space is either complete
    // or absent.
    let staging = path + "/" + TemporaryFile.prefix + "space-" + hexString(Sodium.randomBytes(8))
    guard mkdir(staging, 0o700) == 0 else { throw VaultError.posix(path) }
    do {
      for folder in [Space.photoFolder, Space.thumbFolder] {
        guard mkdir(staging + "/" + folder, 0o700) == 0 else { throw VaultError.posix(staging) }
      }
      let master = MasterKey.generate()
      let keyFile = try TemporaryFile(in: staging)
      try keyFile.write(KeyWrap.wrap(master, with: keys.wrappingKey))
      try keyFile.replace(staging + "/" + Space.keyFile, syncFolder: false)
      let recoveryKey = RecoveryKey.generate()
      try Space.writeRecoveryFile(for: recoveryKey, master: master, in: staging, syncFolder: false)
      let journal = staging + "/" + Space.journalFolder
      guard mkdir(journal, 0o700) == 0 else { throw VaultError.posix(staging) }
      try SpaceJournal.writeSnapshot(of: SpaceState(), in: journal, master: master)
      for folder in [Space.photoFolder, Space.thumbFolder] { try syncDirectory(staging + "/" + folder) }
      try syncDirectory(staging)
      if rename(staging, spacePath) != 0 {
        if errno == EEXIST || errno == ENOTEMPTY { throw VaultError.spaceAlreadyExists }
        throw VaultError.posix(spacePath)
      }
      try syncDirectory(path)
      return recoveryKey
    } catch {
      removeTree(staging)
      throw error
    }
  }

  /// Opens the space of `password`. Reading takes a shared lock, writing an exclusive one;
  /// a writer first tidies and upgrades the space (`Space.prepareForWriting`).
  /// A password that is not in NFC is tried as typed too (one more key derivation), for
  /// spaces made by format 1, which did not normalize.
  public func unlock(password: Password, access: Space.Access) throws -> Space {
    let (keys, spacePath) = try spaceKeys(for: password)
    return try opening(access) { try Space(directory: spacePath, wrappingKey: keys.wrappingKey, access: $0) }
  }

  /// Opens the space a credential names: the space of a password, or the one a session
  /// key unlocked (no key derivation). `.staleSessionKey` when that space is gone or
  /// changed, its key file does not unwrap with the key, or its index does not open: a
  /// session key never reports damage or writes to a space it may not be the key of; the
  /// password decides.
  public func unlock(_ credential: SpaceCredential, access: Space.Access) throws -> Space {
    switch credential {
    case .password(let password):
      return try unlock(password: password, access: access)
    case .sessionKey(let key):
      let spacePath = path + "/" + key.spaceTag
      guard isDirectory(spacePath) else { throw VaultError.staleSessionKey }
      return try opening(access) { access in
        let space = try Space(directory: spacePath, sessionKey: key, access: access)
        // Before a writer tidies: with a damaged index, it would take photos for orphans.
        if space.indexDamage != nil { throw VaultError.staleSessionKey }
        return space
      }
    }
  }

  /// The space `open` opens for `access`, a writer prepared (`Space.prepareForWriting`).
  /// A reader cannot move files: when a sync engine left files of this space under a name
  /// it had before a password change (`Space.adoptFilesLeftByRenames`), the reader lets go
  /// of its lock and a writer takes them in first, so that the reader shows them too. Only
  /// then: a folder that merely lacks a key (anyone with the vault folder can make one)
  /// leaves readers readers, and so does one whose files no writer could move (a
  /// read-only folder a sync brought: becoming a writer on every command would only wait
  /// for the space's other readers, for nothing), which the reader names. Where the writer
  /// fails (read-only media, another writer), the reader goes on without those files.
  private func opening(_ access: Space.Access, _ open: (Space.Access) throws -> Space) throws -> Space {
    let space = try open(access)
    space.expiresTrash = expiresTrash
    if access == .write {
      try space.prepareForWriting()
      return space
    }
    guard Space.hasKeylessFolders(in: path) else { return space }
    let leftovers = space.foldersLeftByRenames()
    let blocked = leftovers.compactMap(\.blocked)
    guard blocked.count < leftovers.count else {
      space.leftoversNotTakenIn = blocked
      return space
    }
    space.releaseLock()
    // What the writer could not take in, or nil when it could not write; the writer, and
    // its lock, are gone when the closure returns.
    let notTakenIn: [VaultError]? = {
      guard let writer = try? open(.write), writer.indexDamage == nil,
        (try? writer.prepareForWriting()) != nil
      else { return nil }
      return writer.leftoversNotTakenIn
    }()
    guard let notTakenIn else { return space }
    let reader = try open(.read)
    reader.leftoversNotTakenIn = notTakenIn
    return reader
  }

  func passwordKeys(for password: Password) throws -> PasswordKeys {
    let passwordKey = try kdf.deriveKey(from: password)
    return PasswordKeys(passwordKey: passwordKey)
  }
}

/// Creates a folder and its missing parents, private to the user (mode 0700).
func makeDirectories(_ path: String) throws {
  if isDirectory(path) { return }
  let parent = parentFolder(path)
  if parent != path { try makeDirectories(parent) }
  if mkdir(path, 0o700) != 0 {
    if errno == EEXIST { return }
    throw VaultError.posix(path)
  }
  // The new folder's entry in its parent must be on disk too, or a power cut could lose
  // the folder with everything later written and reported in it.
  try syncDirectory(parent)
}

/// Removes a folder of vault files (used only for half-made folders of our own, and
/// temporary files), never following a link: a link is removed, not what it points to, so
/// that tidying a space never reaches outside it.
package func removeTree(_ path: String) {
  var info = stat()
  guard lstat(path, &info) == 0 else { return }
  guard info.st_mode & S_IFMT == S_IFDIR else {
    unlink(path)
    return
  }
  for name in (try? listVaultFolder(path)) ?? [] { removeTree(path + "/" + name) }
  rmdir(path)
}
