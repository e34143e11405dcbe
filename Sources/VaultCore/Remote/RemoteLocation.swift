/// A remote as the user typed it (any path rclone takes: `b2:bucket/vault`,
/// `sftp-box:/backups/vault`, `/mnt/usb/vault`, `:sftp,host=…:path`) and the paths vault
/// keeps under it (docs/FORMAT.md, "Backups"): siblings, so that rclone's moves between them
/// never overlap.
public struct RemoteLocation: Equatable, Sendable, CustomStringConvertible {
  /// As typed: what rclone is given. Messages show `description`, its secrets masked.
  public let text: String

  public init(_ text: String) throws {
    guard !text.isEmpty else { throw VaultError.invalidArgument("the remote is empty") }
    guard !text.contains("\n"), !text.contains("\0") else {
      throw VaultError.invalidArgument(
        "the remote '\(RemoteRedaction.redacted(text))' has a line break in it")
    }
    self.text = text
  }

  public var description: String { RemoteRedaction.redacted(text) }

  /// `relative` under the remote.
  public func path(_ relative: String) -> String {
    if relative.isEmpty { return text }
    return text.hasSuffix(":") || text.hasSuffix("/") ? text + relative : text + "/" + relative
  }

  /// A copy of the vault folder: `rclone copy REMOTE/current DIR` alone gives back a vault.
  public static let currentFolder = "current"
  /// Journal and key files on their way into `current`, then the manifest.
  static let incomingFolder = "incoming"
  /// Files a backup took out of `current`, kept aside for the grace period.
  static let removedFolder = "removed"
  /// What the last complete backup sent: `<size> <md5 hex or -> <path>` a line.
  static let manifestFile = "manifest"

  public var current: String { path(Self.currentFolder) }
  /// A file of the vault (`<tag>/Photo/<id>`) in `current`.
  public func current(_ relative: String) -> String { path(Self.currentFolder + "/" + relative) }
  var manifest: String { path(Self.manifestFile) }
  var incoming: String { path(Self.incomingFolder) }
  func removed(_ stamp: String) -> String { path(Self.removedFolder + "/" + stamp) }
}
