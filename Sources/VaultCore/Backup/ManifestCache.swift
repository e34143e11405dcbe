import Foundation

/// This machine's copy of the manifest the last backup of a vault to a remote wrote, so the
/// next backup need not download it: `$XDG_STATE_HOME/vault/backups/<hex BLAKE2b of the
/// vault's real path, a NUL and the remote>` (XDG_STATE_HOME defaults to ~/.local/state).
/// Its `.lock` beside it keeps two backups of the vault to the remote from running at once.
struct ManifestCache {
  let path: String

  init(vault: String, remote: RemoteLocation, environment: [String: String]) {
    let real = (realpath(vault, nil)).map { pointer in
      defer { free(pointer) }
      return String(cString: pointer)
    }
    let key = Array((real ?? vault).utf8) + [0] + Array(remote.text.utf8)
    path = Self.folder(environment) + "/" + hexString(Sodium.genericHash(key, length: 32))
  }

  static func folder(_ environment: [String: String]) -> String {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/vault/backups" }
    return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/vault/backups"
  }

  /// The cached manifest; nil when there is none or it does not read.
  func load() -> BackupManifest? {
    guard let bytes = try? readWholeFile(path, limit: BackupManifest.readLimit) else { return nil }
    return try? BackupManifest(text: bytes, source: path)
  }

  func store(_ manifest: BackupManifest) throws {
    try makeDirectories(parentFolder(path))
    try writeFileAtomically(manifest.encoded(), to: path)
  }

  /// Files a check found missing or damaged on the remote, which the next backup sends
  /// again whatever the remote's listing says (a file damaged in place keeps its size).
  func filesToResend() -> Set<String> {
    guard let bytes = try? readWholeFile(path + ".resend", limit: 1 << 30) else { return [] }
    return Set(bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) })
  }

  func resend(_ paths: some Collection<String>) throws {
    let all = filesToResend().union(paths)
    try makeDirectories(parentFolder(path))
    try writeFileAtomically(Array(all.sorted().joined(separator: "\n").utf8), to: path + ".resend")
  }

  /// After a complete backup: everything was sent again.
  func resent() {
    unlink(path + ".resend")
  }

  /// Takes the lock that one backup of the vault to the remote holds; nil when another
  /// holds it.
  func lock() throws -> Int32? {
    try makeDirectories(parentFolder(path))
    let descriptor = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw VaultError.posix(path + ".lock") }
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      if errno == EINTR { continue }
      close(descriptor)
      return nil
    }
    return descriptor
  }
}
