import Foundation
import VaultCore

/// A video or an animation playing on the photo page. A thread of its own decodes the
/// frames, one ahead of the one on screen at most, and hands each over when its time comes
/// on the playback clock (waking the viewer's loop); a frame already late when decoded is
/// dropped before it is scaled. Keys never wait for decoding: the viewer only reads the
/// latest frame and sets what the thread does next (pause, seek, the area to fit, stop).
final class Playback: Sendable {
  /// The photo played.
  let photo: BlobID
  /// A video, which keys drive and which stops at its end; an animation plays by itself
  /// while its page shows, over and over.
  let isVideo: Bool

  /// How late a frame may be and still show, in microseconds.
  static let lateness: Int64 = 50_000
  /// The longest a playing video goes without a frame handed over, in seconds: when
  /// decoding cannot keep up (a high-bitrate 4K video on a small machine), every frame is
  /// late, and dropping them all would show none; a late one then shows, late.
  static let longestWithoutFrame = 0.25

  /// What the viewer's thread and the decoding thread share. The picture itself is not in
  /// it: only the decoding thread touches that.
  private struct State {
    var paused = false
    /// Whether a frame is wanted even while paused (the one a seek went to).
    var needsFrame = true
    var seekTarget: Int64?
    var area: PixelSize
    /// When playing, the monotonic time at which the clock read 0; when paused, the clock.
    var origin = 0.0
    var pausedAt: Int64 = 0
    var stopped = false
    var handedOver: MovingFrame?
    var ended = false
    var failure: Error?
    var droppedFrames = 0
    var lengthMicroseconds: Int64 = 0
    /// When the last frame was handed over (monotonic seconds).
    var lastHandedOver = 0.0
    /// The time the last seek went to: the frames leading up to it never show.
    var seekedTo: Int64 = 0
    /// The frame the viewer took last (only the viewer's thread changes it).
    var onScreen: MovingFrame?

    /// Where the clock stands, in microseconds.
    func clock() -> Int64 {
      paused ? pausedAt : Int64((FullScreenTerminal.now() - origin) * 1e6)
    }

    /// Asks the decoding thread for the frame at `target` (wake it afterwards).
    mutating func seek(to target: Int64) {
      seekTarget = target
      seekedTo = target
      pausedAt = target
      origin = FullScreenTerminal.now() - Double(target) / 1e6
      needsFrame = true
    }
  }
  private let state: WaitableMutex<State>

  /// Ends what `open` opened, or is opening, in its decoder helper when the playback stops.
  private let cancellation: PlaybackCancellation?

  /// Plays what `open` opens (nil: a still, nothing to play), fitting its frames in `area`;
  /// `stop` cancels `cancellation`, which `open` gave the picture.
  init(
    photo: BlobID, open: @escaping @Sendable () throws -> MovingPicture?, isVideo: Bool, area: PixelSize,
    cancellation: PlaybackCancellation? = nil
  ) {
    self.photo = photo
    self.cancellation = cancellation
    self.isVideo = isVideo
    state = WaitableMutex(State(area: area))
    Thread { self.play(open) }.start()
  }

  // MARK: What the viewer reads and asks

  /// Takes the latest frame handed over, if any, as the one on screen, and returns the
  /// frame to draw now and why playing stopped if it failed. An animation's next frame is
  /// handed over only once this took the one before.
  @discardableResult
  func current() -> (frame: MovingFrame?, failure: Error?) {
    let (shown, replaced, failure) = state.withLock { state -> (MovingFrame?, MovingFrame?, Error?) in
      guard let next = state.handedOver else { return (state.onScreen, nil, state.failure) }
      let replaced = state.onScreen
      (state.handedOver, state.onScreen) = (nil, next)
      return (next, replaced, state.failure)
    }
    state.wakeAll()
    replaced?.image?.pixels.wipeShared()
    return (shown, failure)
  }

  /// The frame `current` took last, without taking a newer one: what the viewer uploaded
  /// before its frame began is what it places.
  func onScreen() -> (frame: MovingFrame?, failure: Error?) {
    state.withLock { ($0.onScreen, $0.failure) }
  }

  var isPaused: Bool { state.withLock { $0.paused } }
  /// Whether it stopped by itself: it failed, or there was nothing to play (a still GIF).
  var isFinished: Bool { state.withLock { $0.stopped } }
  /// Whether a video played to its end (it stays on its last frame, paused).
  var hasEnded: Bool { state.withLock { $0.ended } }
  var dropped: Int { state.withLock { $0.droppedFrames } }

  /// The time the progress line shows: the frame on screen's.
  var shownMicroseconds: Int64 { state.withLock { $0.onScreen?.microseconds ?? 0 } }

  func togglePause() {
    state.withLock { state in
      if state.ended {
        state.ended = false
        state.seek(to: 0)
      } else if state.paused {
        state.origin = FullScreenTerminal.now() - Double(state.pausedAt) / 1e6
      } else {
        state.pausedAt = state.clock()
      }
      state.paused.toggle()
    }
    state.wakeAll()
  }

  /// Moves the clock by `seconds` from the frame on screen, within the video.
  func seek(by seconds: Int64) {
    state.withLock { state in
      let from = state.onScreen?.microseconds ?? 0
      state.ended = false
      state.seek(to: min(max(0, from + seconds * 1_000_000), max(0, state.lengthMicroseconds - 1)))
    }
    state.wakeAll()
  }

  /// The pixels the frames are scaled to fit from now on (the window was resized).
  func fit(_ area: PixelSize) {
    state.withLock { $0.area = area }
  }

  /// Stops the thread (a request its helper is working on ends at once); the frame on
  /// screen is wiped.
  func stop() {
    cancellation?.cancel()
    let frames = state.withLock { state in
      state.stopped = true
      defer { (state.handedOver, state.onScreen) = (nil, nil) }
      return [state.handedOver, state.onScreen]
    }
    state.wakeAll()
    for frame in frames { frame?.image?.pixels.wipeShared() }
  }

  // MARK: The decoding thread

  /// Opens the picture, decodes until stopped, then lets go of the picture when it returns,
  /// outside the lock: ending a helper's session talks to the helper.
  private func play(_ open: () throws -> MovingPicture?) {
    guard let picture = opening(open) else { return }
    decodeFrames(of: picture)
  }

  /// Opened on this thread: a GIF is decrypted whole first, which keys must not wait for.
  private func opening(_ open: () throws -> MovingPicture?) -> MovingPicture? {
    do {
      let opened = try open()
      let length = opened?.durationMicroseconds ?? 0
      let nothingToPlay = opened == nil
      state.withLock { state in
        state.lengthMicroseconds = length
        state.origin = FullScreenTerminal.now()
        if nothingToPlay { state.stopped = true }
      }
      return opened
    } catch {
      fail(error)
      return nil
    }
  }

  private func decodeFrames(of picture: MovingPicture) {
    while let seek = waitForWork() {
      do {
        if let seek { try picture.seek(toMicroseconds: seek) }
        guard let frame = try picture.nextFrame(scaledTo: { scale($0, toFit: picture.shownSize) }) else {
          try reachedEnd(of: picture)
          continue
        }
        guard frame.image != nil else {
          state.withLock { $0.droppedFrames += 1 }
          continue
        }
        handOver(frame)
      } catch {
        fail(error)
        return
      }
    }
  }

  private func fail(_ error: Error) {
    state.withLock { state in
      state.failure = error
      state.stopped = true
    }
    FullScreenTerminal.wake()
  }

  /// Waits until a frame is wanted; the seek to make first (`.some(nil)`: none), or nil
  /// once stopped.
  private func waitForWork() -> Int64?? {
    state.withLock(
      waiting: { $0.stopped || !$0.paused || $0.needsFrame || $0.seekTarget != nil ? .no : .untilWoken },
      then: { state -> Int64?? in
        if state.stopped { return nil }
        defer { state.seekTarget = nil }
        return .some(state.seekTarget)
      })
  }

  /// The size to scale a frame of `time` to, or nil when it is late (dropped).
  private func scale(_ time: Int64, toFit shownSize: PixelSize) -> PixelSize? {
    state.withLock { state in
      if state.seekTarget != nil { return nil }
      let late = time < state.clock() - Self.lateness
      let starved =
        !state.paused && FullScreenTerminal.now() - state.lastHandedOver > Self.longestWithoutFrame
      if time < state.seekedTo - Self.lateness { return nil }
      // An animation's frames all show, each for its own delay: a late one is not skipped.
      if isVideo && late && !starved { return nil }
      return shownSize.fitted(in: state.area)
    }
  }

  /// Waits for `frame`'s time on the clock (at once when paused: it is the frame a seek
  /// went to), then hands it over and wakes the viewer. A seek meanwhile drops it. A video
  /// frame replaces one the viewer has not taken yet; an animation's waits for the viewer
  /// to take it, and one handed over late moves the clock, so that the next frame still
  /// shows for nearly its whole delay rather than flash by.
  private func handOver(_ frame: MovingFrame) {
    let wanted = state.withLock(
      waiting: { state in
        guard !state.stopped, state.seekTarget == nil else { return .no }
        if !isVideo && state.handedOver != nil { return .untilWoken }
        // Paused before its time: it waits for the resume, unless a seek asked for it.
        if state.paused { return state.needsFrame ? .no : .untilWoken }
        let early = frame.microseconds - state.clock()
        return early <= 0 ? .no : .atMost(seconds: Double(early) / 1e6)
      },
      then: { state -> Bool in
        guard !state.stopped, state.seekTarget == nil else { return false }
        let late = state.clock() - frame.microseconds
        if !isVideo && late > Self.lateness { state.origin += Double(late - Self.lateness) / 1e6 }
        state.handedOver?.image?.pixels.wipeShared()
        state.handedOver = frame
        state.needsFrame = false
        state.lastHandedOver = FullScreenTerminal.now()
        return true
      })
    if wanted {
      FullScreenTerminal.wake()
    } else {
      frame.image?.pixels.wipeShared()
    }
  }

  /// At the end: a video stays on its last frame, paused. An animation plays on by itself
  /// (its helper starts it over, the times going on, so the last frame keeps its delay);
  /// one that ends anyway starts over here.
  private func reachedEnd(of picture: MovingPicture) throws {
    if !isVideo {
      try picture.seek(toMicroseconds: 0)
      state.withLock { $0.origin = FullScreenTerminal.now() }
      return
    }
    state.withLock { state in
      state.ended = true
      state.paused = true
      state.pausedAt = state.clock()
      state.needsFrame = false
    }
    FullScreenTerminal.wake()
  }
}
