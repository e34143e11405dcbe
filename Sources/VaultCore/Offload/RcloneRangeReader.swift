import Foundation

/// Reads byte ranges of a remote's files with `rclone cat --offset O --count N`, into a
/// buffer of exactly that bound. With `$VAULT_REMOTE_READ_LOG` set (tests), each read
/// appends `<offset> <count> <bytes read> <path>` to that file, so that a test can count
/// what a seek fetched. A remote found unreachable is not tried again for a while
/// (`UnreachableRemotes`).
struct RcloneRangeReader: RemoteRangeReader {
  /// A range read is waited for (view, export, the mount, keep): a server that accepts and
  /// never answers fails it in 20 s, not rclone's 3 × 60 s; these follow, and so override,
  /// `Rclone.commonOptions`.
  static let interactiveOptions = ["--timeout", "20s", "--low-level-retries", "1"]

  let location: RemoteLocation
  let rclone: Rclone
  private let log: String?

  var remote: String { location.text }

  init(_ location: RemoteLocation, environment: [String: String] = ProcessInfo.processInfo.environment) {
    self.location = location
    rclone = Rclone(environment: environment)
    log = environment["VAULT_REMOTE_READ_LOG"].flatMap { $0.isEmpty ? nil : $0 }
  }

  func read(_ path: String, offset: Int, count: Int) throws -> [UInt8] {
    if let error = UnreachableRemotes.shared.recent(remote) {
      throw VaultError.remote(error)
    }
    let bytes: [UInt8]
    do {
      bytes = try rclone.read(
        Self.interactiveOptions + ["--offset", String(offset), "--count", String(count)], location.path(path),
        remote: remote,
        limit: count)
    } catch let error as RemoteError {
      // A VaultError, so that every command words it as its own (export names the photo).
      UnreachableRemotes.shared.note(error, of: remote)
      throw VaultError.remote(error)
    }
    if let log { Self.append("\(offset) \(count) \(bytes.count) \(path)\n", to: log) }
    return bytes
  }

  private static func append(_ line: String, to path: String) {
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return }
    _ = Array(line.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
  }
}
