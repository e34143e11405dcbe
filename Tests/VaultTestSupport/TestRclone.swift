import Foundation

/// Debian's rclone, which scripts/deps.sh installs.
public let rclonePath = "/usr/bin/rclone"

/// Requires rclone (skipped on a developer's machine without it, a failure under CI).
public func requireRclone() throws {
  try requireTool(rclonePath)
}

/// The environment a test runs rclone (or vault, which runs it) in: this process's, with
/// no user's rclone config (remotes come from `RCLONE_CONFIG_*` variables or connection
/// strings), plus `extra`.
public func rcloneTestEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
  var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RCLONE_") }
  environment["RCLONE_CONFIG"] = "/nonexistent"
  environment.merge(extra) { $1 }
  return environment
}

/// An SFTP connection string for rclone to a port of 127.0.0.1 that nothing listens on,
/// with a key made in `folder` (so that rclone gets as far as connecting).
public func unreachableSFTPRemote(keysIn folder: String) throws -> String {
  try requireTool("/usr/bin/ssh-keygen")
  let key = folder + "/unreachable-key"
  let keygen = Process()
  keygen.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-keygen")
  keygen.arguments = ["-q", "-t", "ed25519", "-N", "", "-f", key]
  keygen.standardInput = FileHandle.nullDevice
  try keygen.run()
  keygen.waitUntilExit()
  return ":sftp,host=127.0.0.1,port=\(try freePort()),user=nobody,key_file=\(key):backup"
}
