import Synchronization

/// The remotes a read found unreachable lately, with rclone's reason: reads of the same
/// remote fail at once with it for `memory` seconds, so that an export of many offloaded
/// photos, or the viewer paging through them, waits out rclone's connection timeout once,
/// not once a photo. Shared by the process's threads.
final class UnreachableRemotes: Sendable {
  static let shared = UnreachableRemotes()
  /// Seconds an answer is kept: long enough for a batch's photos read one after another,
  /// short enough that the mount or the viewer reads a remote that came back within
  /// seconds (30 s failed the mount half a minute after the remote was back).
  static let memory: UInt64 = 5

  private let failures = Mutex<[String: (error: RemoteError, at: UInt64)]>([:])

  /// The error a read of `remote` found less than `memory` seconds ago, if any.
  func recent(_ remote: String, now: UInt64 = DecoderChannel.now()) -> RemoteError? {
    failures.withLock { failures in
      guard let failure = failures[remote] else { return nil }
      guard now - failure.at < Self.memory * 1_000_000_000 else {
        failures[remote] = nil
        return nil
      }
      return failure.error
    }
  }

  /// Keeps `error` of `remote` when it says the remote could not be reached.
  func note(_ error: Error, of remote: String, now: UInt64 = DecoderChannel.now()) {
    guard let error = error as? RemoteError, case .unreachable = error else { return }
    failures.withLock { $0[remote] = (error, now) }
  }
}
