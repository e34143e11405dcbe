import CKeyutils
import Foundation

/// Where `vault unlock` keeps space keys: the kernel's key retention service, in a keyring
/// of vault's own linked into the session keyring, so that later commands of the same
/// login session open the space without its password or a key derivation.
///
/// Layout (docs/FORMAT.md, "Unlock once per session"): the session keyring holds a keyring
/// named `vault`; it holds the user key `vault:secret` (32 random bytes that name the
/// others) and at most one user key per vault, named `vault:` ‖ hex of a BLAKE2b-128 keyed
/// with that secret over the vault's real path and salt, so that the name says neither
/// which vault nor which space. Every one of them is readable only by its possessors (the
/// processes of the session), and each space key has the kernel's own timeout.
///
/// Nothing is searched for (`keyctl_search` also looks into nested keyrings, such as the
/// user keyring pam_keyinit links into every session keyring, which every process of the
/// user may write): vault's keyring is the one linked directly in the session keyring, and
/// each key is a direct member of it; every one must be owned by this user and have exactly
/// the permissions vault sets.
public enum SessionKeyring {
  static let keyringDescription = "vault"
  static let secretDescription = "vault:secret"
  static let spaceKeyPrefix = "vault:"
  static let nameLabel = Array("vault session key name v1".utf8)
  static let secretLength = 32
  static let nameLength = 16

  /// Possessors may list vault's keyring and add or remove its keys; nobody else may even see it.
  static let keyringPermissions = key_perm_t(KEY_POS_VIEW | KEY_POS_READ | KEY_POS_WRITE | KEY_POS_SEARCH)
  /// What the keyring has while an unlock moves it into the session keyring (moving takes
  /// `link`, and taking `link` away again takes `setattr`): another unlock finding it then
  /// uses it as it is.
  static let publishingKeyringPermissions = key_perm_t(KEY_POS_ALL)
  /// How often an unlock looks for vault's keyring again when other commands of the
  /// session change it under it (another unlock linking its own first, `lock --all`).
  static let attempts = 8
  /// The naming secret is never changed once made.
  static let secretPermissions = key_perm_t(KEY_POS_VIEW | KEY_POS_READ | KEY_POS_SEARCH)
  /// A space key is replaced, never updated; SETATTR lets each use push its timeout back.
  static let spaceKeyPermissions = key_perm_t(
    KEY_POS_VIEW | KEY_POS_READ | KEY_POS_SEARCH | KEY_POS_SETATTR)

  /// What a look-up found.
  public enum Lookup {
    /// No key of this vault (or no keyring at all).
    case none
    /// This vault's key; its timeout was refreshed when the look-up asked for that.
    case found(SessionKey)
    /// A key whose space is gone or no longer takes it (its password was changed, the space
    /// was removed, or the key does not unwrap its key file), or a payload this version
    /// did not write: it was dropped.
    case droppedStale
  }

  // MARK: For the commands

  /// Throws `.keyringUnavailable` unless this process can reach a session keyring (seccomp
  /// filters of containers, and some kernels, refuse the key system calls).
  public static func checkAvailable() throws {
    if keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0) < 0 { throw unavailable("keyctl") }
  }

  /// Whether the session keyring is the user's default one, which every process of the
  /// user that has no session keyring of its own shares (a login without pam_keyinit).
  public static var isUserDefaultSession: Bool {
    let session = keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0)
    return session >= 0 && session == keyctl_get_keyring_ID(KEY_SPEC_USER_SESSION_KEYRING, 0)
  }

  /// Keeps the key of `space` (opened from `vault`) for `lifetime`, replacing any key this
  /// vault had there. Throws `.keyringUnavailable` when the kernel refuses. Unlocks racing
  /// in one session (of one vault or several) each keep their key, in the one keyring: the
  /// last one of a vault replaces the others.
  @discardableResult
  public static func store(_ space: Space, of vault: Vault, lifetime: SessionLifetime) throws -> SessionKey {
    guard let wrappingKey = space.wrappingKey else {
      preconditionFailure("a space opened by a password or session key knows its wrapping key")
    }
    let key = SessionKey(spaceTag: space.tag, wrappingKey: wrappingKey, lifetime: lifetime)
    let timeout = lifetime.timeout(at: SessionLifetime.now())
    guard timeout > 0 else { throw VaultError.invalidArgument("the session key's deadline has passed") }
    let payload = key.encoded()
    for _ in 0..<attempts {
      let (ring, secret) = try keyringAndSecret()
      guard let name = spaceKeyName(for: vault, secret: secret) else { throw VaultError.posix(vault.path) }
      do {
        try addSpaceKey(named: name, payload: payload, timeout: timeout, to: ring)
      } catch {
        // Refused because the keyring went meanwhile (lock --all): the next one is tried.
        if vaultKeyring() == ring { throw error }
        continue
      }
      // The keyring may have gone after the key was put in it: the key went with it.
      if vaultKeyring() == ring {
        key.expires = SessionLifetime.now() + Int64(timeout)
        return key
      }
    }
    throw VaultError.keyringBusy
  }

  /// This vault's key, if the session holds one that still opens its space. With `refresh`
  /// (a command about to use it), its timeout starts again, up to its deadline. A key past
  /// its deadline, or one whose space is gone or changed, is dropped.
  public static func lookUp(for vault: Vault, refresh: Bool = true) -> Lookup {
    guard let ring = vaultKeyring(), let secret = readSecret(in: ring),
      let name = spaceKeyName(for: vault, secret: secret),
      let serial = member(of: ring, type: "user", name: name, permissions: [spaceKeyPermissions])
    else { return .none }
    let payload = SecureBytes(count: SessionKey.payloadLength)
    guard
      keyctl_read(serial, payload.pointer.assumingMemoryBound(to: CChar.self), payload.count)
        == SessionKey.payloadLength, let key = SessionKey.decode(payload)
    else {
      keyctl_invalidate(serial)
      return .droppedStale
    }
    let now = SessionLifetime.now()
    let timeout = key.lifetime.timeout(at: now)
    // The kernel's timeout ends at the deadline; this is for a clock set back meanwhile.
    if timeout == 0 {
      keyctl_invalidate(serial)
      return .none
    }
    guard key.opensSpace(in: vault) else {
      keyctl_invalidate(serial)
      return .droppedStale
    }
    if refresh, keyctl_set_timeout(serial, UInt32(timeout)) == 0 {
      key.expires = now + Int64(timeout)
    }
    return .found(key)
  }

  /// Drops this vault's key, if the session holds one (`vault lock`, and a password
  /// change, after which the key no longer fits). Returns whether there was one.
  @discardableResult
  public static func drop(for vault: Vault) -> Bool {
    guard let ring = vaultKeyring(), let secret = readSecret(in: ring),
      let name = spaceKeyName(for: vault, secret: secret),
      let serial = member(of: ring, type: "user", name: name, permissions: nil)
    else { return false }
    // Invalidated keys are gone at once for every process; the kernel wipes their payload.
    if keyctl_invalidate(serial) != 0 { keyctl_unlink(serial, ring) }
    return true
  }

  /// Drops every key vault keeps in this session, and its keyring (`vault lock --all`).
  /// Returns how many space keys there were.
  @discardableResult
  public static func dropAll() -> Int {
    guard let ring = vaultKeyring() else { return 0 }
    let count = members(of: ring).filter { serial in
      guard let description = describe(serial) else { return false }
      return description.type == "user" && description.name.hasPrefix(spaceKeyPrefix)
        && description.name != secretDescription
    }.count
    removeKeyring(ring)
    return count
  }

  // MARK: Keyring calls

  /// The session keyring, by its serial number. Never by KEY_SPEC_SESSION_KEYRING in a call
  /// that may create it (add_key, link, move): where the session keyring is the user's
  /// default one, the kernel answers those with a new session keyring of this process
  /// alone, and a key put there went with the process.
  static var sessionKeyring: key_serial_t {
    keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0)
  }

  private static func unavailable(_ call: String, _ code: Int32 = errno) -> VaultError {
    .keyringUnavailable(reason: "\(call): \(String(cString: strerror(code)))")
  }

  /// vault's keyring: the keyring named `vault` linked directly in the session keyring,
  /// owned by this user, with vault's permissions; nil when there is none.
  static func vaultKeyring() -> key_serial_t? {
    member(
      of: sessionKeyring, type: "keyring", name: keyringDescription,
      permissions: [keyringPermissions, publishingKeyringPermissions])
  }

  /// The key of `type` and `name` linked directly in `ring`, if it is owned by this user and
  /// has one of `permissions` (any, when nil): anything else is not vault's.
  static func member(of ring: key_serial_t, type: String, name: String, permissions: Set<key_perm_t>?)
    -> key_serial_t?
  {
    let user = geteuid()
    return members(of: ring).first { serial in
      guard let key = describe(serial) else { return false }
      return key.type == type && key.name == name && key.owner == user
        && (permissions?.contains(key.permissions) ?? true)
    }
  }

  /// vault's keyring and its naming secret, made when the session has none. The keyring is
  /// made with its secret in this process's own keyring, and moved into the session keyring
  /// only if no keyring named `vault` has been linked there meanwhile (KEYCTL_MOVE_EXCL):
  /// of two unlocks racing, the second uses the first one's keyring instead of displacing
  /// it (and the keys already in it).
  private static func keyringAndSecret() throws -> (ring: key_serial_t, secret: SecureBytes) {
    for _ in 0..<attempts {
      if let ring = vaultKeyring(), let secret = readSecret(in: ring) { return (ring, secret) }
      // Not vault's (linked by hand, or by an older vault), or without its secret (going,
      // for lock --all): out of the way, so that the move below can be exclusive.
      if let other = member(
        of: sessionKeyring, type: "keyring", name: keyringDescription, permissions: nil)
      {
        keyctl_unlink(other, sessionKeyring)
      }
      if let made = try makeKeyring() { return made }
    }
    throw VaultError.keyringBusy
  }

  /// Makes vault's keyring and its secret, and moves them into the session keyring; nil
  /// when another keyring named `vault` got there first.
  private static func makeKeyring() throws -> (ring: key_serial_t, secret: SecureBytes)? {
    let ring = add_key("keyring", keyringDescription, nil, 0, KEY_SPEC_PROCESS_KEYRING)
    guard ring > 0 else { throw unavailable("add_key") }
    var moved = false
    defer {
      if !moved {
        keyctl_clear(ring)
        keyctl_unlink(ring, KEY_SPEC_PROCESS_KEYRING)
        keyctl_invalidate(ring)
      }
    }
    let secret = SecureBytes.random(count: secretLength)
    guard keyctl_setperm(ring, publishingKeyringPermissions) == 0 else { throw unavailable("keyctl") }
    let secretKey = add_key("user", secretDescription, secret.pointer, secret.count, ring)
    guard secretKey > 0 else { throw unavailable("add_key") }
    guard keyctl_setperm(secretKey, secretPermissions) == 0 else { throw unavailable("keyctl") }
    if keyctl_move(ring, KEY_SPEC_PROCESS_KEYRING, sessionKeyring, UInt32(KEYCTL_MOVE_EXCL)) != 0 {
      if errno == EEXIST { return nil }
      // Kernels before 5.1 cannot move keys: linked, the keyring displaces any other one.
      guard errno == EOPNOTSUPP, keyctl_link(ring, sessionKeyring) == 0 else {
        throw unavailable("keyctl")
      }
      keyctl_unlink(ring, KEY_SPEC_PROCESS_KEYRING)
    }
    moved = true
    guard keyctl_setperm(ring, keyringPermissions) == 0 else {
      let error = unavailable("keyctl")
      removeKeyring(ring)
      throw error
    }
    return (ring, secret)
  }

  private static func removeKeyring(_ ring: key_serial_t) {
    keyctl_clear(ring)
    keyctl_unlink(ring, sessionKeyring)
    keyctl_invalidate(ring)
  }

  /// Puts `payload` in `ring` as `name`, in place of the key of that name. The key is made
  /// in this process's own keyring and gets its permissions and timeout there: a process
  /// killed before the key is linked into `ring` leaves nothing (its keyring goes with it),
  /// so vault's keyring never holds a key without a timeout. Linking displaces the
  /// vault's previous key at once (the kernel frees and wipes it), with no moment without
  /// one, and never fails for a key another unlock put there meanwhile.
  private static func addSpaceKey(
    named name: String, payload: SecureBytes, timeout: Int, to ring: key_serial_t
  )
    throws
  {
    let serial = add_key("user", name, payload.pointer, payload.count, KEY_SPEC_PROCESS_KEYRING)
    guard serial > 0 else { throw unavailable("add_key") }
    defer { keyctl_unlink(serial, KEY_SPEC_PROCESS_KEYRING) }
    // Linking takes the link permission, which the key loses once it is in place.
    guard keyctl_setperm(serial, spaceKeyPermissions | key_perm_t(KEY_POS_LINK)) == 0,
      keyctl_set_timeout(serial, UInt32(timeout)) == 0, keyctl_link(serial, ring) == 0,
      keyctl_setperm(serial, spaceKeyPermissions) == 0
    else {
      let error = unavailable("keyctl")
      keyctl_invalidate(serial)
      throw error
    }
  }

  /// The name of this vault's key under `secret`; nil when the vault's folder cannot be
  /// resolved.
  private static func spaceKeyName(for vault: Vault, secret: SecureBytes) -> String? {
    guard let resolved = realpath(vault.path, nil) else { return nil }
    defer { free(resolved) }
    return spaceKeyName(secret: secret, resolvedPath: String(cString: resolved), salt: vault.kdf.salt)
  }

  /// `vault:` ‖ hex of BLAKE2b-128, keyed with the session's secret, over the label, the
  /// vault's real path, a zero byte and its salt: the path tells vaults apart on one
  /// machine, the salt a vault made again at the same path.
  static func spaceKeyName(secret: SecureBytes, resolvedPath: String, salt: [UInt8]) -> String {
    let message = nameLabel + Array(resolvedPath.utf8) + [0] + salt
    let name = Sodium.genericHash(message, length: nameLength, key: secret)
    return spaceKeyPrefix + hexString(name)
  }

  private static func readSecret(in ring: key_serial_t) -> SecureBytes? {
    guard
      let serial = member(of: ring, type: "user", name: secretDescription, permissions: [secretPermissions])
    else { return nil }
    let secret = SecureBytes(count: secretLength)
    let length = keyctl_read(serial, secret.pointer.assumingMemoryBound(to: CChar.self), secret.count)
    return length == secretLength ? secret : nil
  }

  /// The serial numbers of the keys a keyring holds directly.
  private static func members(of ring: key_serial_t) -> [key_serial_t] {
    var serials = [key_serial_t](repeating: 0, count: 64)
    while true {
      let bytes = serials.withUnsafeMutableBytes {
        keyctl_read(ring, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count)
      }
      guard bytes >= 0 else { return [] }
      // The kernel says how much the whole list takes; it may have grown meanwhile.
      if bytes <= serials.count * 4 { return Array(serials.prefix(bytes / 4)) }
      serials = [key_serial_t](repeating: 0, count: bytes / 4 + 16)
    }
  }

  /// What the kernel says of a key: "type;uid;gid;perm;description", perm in hex.
  private static func describe(_ serial: key_serial_t)
    -> (type: String, owner: uid_t, permissions: key_perm_t, name: String)?
  {
    var buffer = [CChar](repeating: 0, count: 512)
    guard keyctl_describe(serial, &buffer, buffer.count) > 0 else { return nil }
    let fields = String(nulTerminated: buffer).split(
      separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
    guard fields.count == 5, let owner = uid_t(fields[1]), let permissions = key_perm_t(fields[3], radix: 16)
    else { return nil }
    return (String(fields[0]), owner, permissions, String(fields[4]))
  }
}

extension SessionKey {
  /// Whether the key file of this key's space in `vault` unwraps with it: a look-up drops a
  /// key that fails this (a space whose password was changed, removed, or a key forged in
  /// the keyring) before a command relies on it. Checked again, under the space's lock,
  /// when the space is opened.
  func opensSpace(in vault: Vault) -> Bool {
    let keyPath = vault.path + "/" + spaceTag + "/" + Space.keyFile
    guard let keyFile = try? readWholeFile(keyPath, limit: 4096) else { return false }
    return unwrapMaster(keyFile: keyFile) != nil
  }
}
