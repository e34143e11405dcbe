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
