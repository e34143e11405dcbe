/// Why rclone could not do what vault asked of a remote. Each description is one lowercase
/// line that names the remote as the user typed it.
public enum RemoteError: Error, Equatable, CustomStringConvertible {
  /// The remote did not answer, refused the connection, or rclone could not set it up;
  /// `reason` is rclone's last meaningful error line, or what vault's watchdog saw.
  case unreachable(remote: String, reason: String)
  /// A folder or file asked for is not on the remote (`path` relative to it).
  case notFound(remote: String, path: String)
  /// rclone reached the remote and failed there (a permission, a full disk…).
  case failed(remote: String, reason: String)
  /// A read of the remote gave more bytes than it may (`limit`).
  case tooLong(remote: String, path: String, limit: Int)
  /// rclone is not at `path`.
  case rcloneMissing(path: String)

  /// Whether the error tells nothing about the file asked for: the remote could not be
  /// asked (not reached, failing, no rclone), so the file may well be there intact.
  public var leavesTheFileUnknown: Bool {
    switch self {
    case .unreachable, .failed, .rcloneMissing: return true
    case .notFound, .tooLong: return false
    }
  }

  /// One line, the remote's secrets (and any rclone's reason quotes) masked.
  public var description: String { RemoteRedaction.redacted(unmasked) }

  private var unmasked: String {
    switch self {
    case .unreachable(let remote, let reason): return "cannot reach '\(remote)': \(reason)"
    case .notFound(let remote, let path):
      return "'\(remote)': \(path.isEmpty ? "the folder" : path) not found"
    case .failed(let remote, let reason): return "'\(remote)': \(reason)"
    case .tooLong(let remote, let path, let limit):
      return "'\(remote)': \(path) gave more than the \(limit) bytes asked for"
    case .rcloneMissing(let path): return "rclone is not installed: '\(path)' is not there"
    }
  }
}
