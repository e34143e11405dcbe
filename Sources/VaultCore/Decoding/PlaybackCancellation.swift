import Foundation
import Synchronization

/// Ends a video or animation playing in a decoder helper from another thread (the viewer
/// left its page, or quit): a request under way — opening the file or decoding a frame —
/// ends at once, its helper killed, rather than running on to its deadline. An idle helper
/// is left alone, to play the next file.
public final class PlaybackCancellation: Sendable {
  private struct State {
    var cancelled = false
    /// The helper working on a request now.
    var helperUnderWay: pid_t?
    var killed = false
  }
  private let state = Mutex(State())

  public init() {}

  public func cancel() {
    state.withLock { state in
      state.cancelled = true
      if let helper = state.helperUnderWay {
        kill(helper, SIGKILL)
        state.killed = true
      }
    }
  }

  /// Whether `cancel` killed a helper (whose worker may not know it yet: it is ended and
  /// reaped before it goes back to its pool).
  var killedHelper: Bool { state.withLock { $0.killed } }

  /// Whether a request is under way (tests wait for one before they cancel).
  var isUnderWay: Bool { state.withLock { $0.helperUnderWay != nil } }

  /// Runs `body`, a request to the helper `pid` about `name`, where `cancel` can end it;
  /// once cancelled, no request starts.
  func run<Result>(helper pid: pid_t, name: String, _ body: () throws -> Result) throws -> Result {
    try state.withLock { state in
      guard !state.cancelled else {
        throw VaultError.decoderRefused(path: name, reason: "playing was stopped")
      }
      state.helperUnderWay = pid
    }
    defer { state.withLock { $0.helperUnderWay = nil } }
    return try body()
  }
}
