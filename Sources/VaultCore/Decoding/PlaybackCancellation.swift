import Foundation

/// Ends a video or animation playing in a decoder helper from another thread (the viewer
/// left its page, or quit): a request under way — opening the file or decoding a frame —
/// ends at once, its helper killed, rather than running on to its deadline. An idle helper
/// is left alone, to play the next file.
public final class PlaybackCancellation: @unchecked Sendable {
  private let lock = NSLock()
  // Guarded by `lock`.
  private var cancelled = false
  /// The helper working on a request now.
  private var helperUnderWay: pid_t?
  private var killed = false

  public init() {}

  public func cancel() {
    lock.withLock {
      cancelled = true
      if let helper = helperUnderWay {
        kill(helper, SIGKILL)
        killed = true
      }
    }
  }

  /// Whether `cancel` killed a helper (whose worker may not know it yet: it is ended and
  /// reaped before it goes back to its pool).
  var killedHelper: Bool { lock.withLock { killed } }

  /// Whether a request is under way (tests wait for one before they cancel).
  var isUnderWay: Bool { lock.withLock { helperUnderWay != nil } }

  /// Runs `body`, a request to the helper `pid` about `name`, where `cancel` can end it;
  /// once cancelled, no request starts.
  func run<Result>(helper pid: pid_t, name: String, _ body: () throws -> Result) throws -> Result {
    try lock.withLock {
      guard !cancelled else { throw VaultError.decoderRefused(path: name, reason: "playing was stopped") }
      helperUnderWay = pid
    }
    defer { lock.withLock { helperUnderWay = nil } }
    return try body()
  }
}
