import Foundation
import VaultCore

/// A video or an animation playing on the photo page. A thread of its own decodes the
/// frames, one ahead of the one on screen at most, and hands each over when its time comes
/// on the playback clock (waking the viewer's loop); a frame already late when decoded is
/// dropped before it is scaled. Keys never wait for decoding: the viewer only reads the
/// latest frame and sets what the thread does next (pause, seek, the area to fit, stop).
final class Playback: @unchecked Sendable {
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

  /// Opened on the thread: a GIF is decrypted whole first, which keys must not wait for.
  private var picture: MovingPicture?
  private let condition = NSCondition()
  // Guarded by `condition`.
  private var paused = false
  /// Whether a frame is wanted even while paused (the one a seek went to).
  private var needsFrame = true
  private var seekTarget: Int64?
  private var area: PixelSize
  /// When playing, the monotonic time at which the clock read 0; when paused, the clock.
  private var origin = 0.0
  private var pausedAt: Int64 = 0
  private var stopped = false
  private var handedOver: MovingFrame?
  private var ended = false
  private var failure: Error?
  private var droppedFrames = 0
  private var lengthMicroseconds: Int64 = 0
  /// When the last frame was handed over (monotonic seconds).
  private var lastHandedOver = 0.0
  /// The time the last seek went to: the frames leading up to it never show.
  private var seekedTo: Int64 = 0

  /// The frame the viewer took last (only the viewer's thread touches it).
  private var onScreen: MovingFrame?

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
    self.area = area
    Thread {
      self.opening(open)
      self.decode()
    }.start()
  }

  private func opening(_ open: () throws -> MovingPicture?) {
    do {
      let opened = try open()
      locked {
        picture = opened
        lengthMicroseconds = opened?.durationMicroseconds ?? 0
        origin = FullScreenTerminal.now()
        if opened == nil { stopped = true }
      }
    } catch {
      fail(error)
    }
  }

  // MARK: What the viewer reads and asks

  /// The frame to draw now (the latest handed over), and why playing stopped if it failed.
  func current() -> (frame: MovingFrame?, failure: Error?) {
    condition.lock()
    let (next, failed) = (handedOver, failure)
    handedOver = nil
    condition.unlock()
    if let next {
      onScreen?.image?.pixels.wipeShared()
      onScreen = next
    }
    return (onScreen, failed)
  }

  var isPaused: Bool { locked { paused } }
  /// Whether it stopped by itself: it failed, or there was nothing to play (a still GIF).
  var isFinished: Bool { locked { stopped } }
  var dropped: Int { locked { droppedFrames } }

  /// The time the progress line shows: the frame on screen's.
  var shownMicroseconds: Int64 { onScreen?.microseconds ?? 0 }

  func togglePause() {
    locked {
      if ended {
        ended = false
        seek(toLocked: 0)
      } else if paused {
        origin = FullScreenTerminal.now() - Double(pausedAt) / 1e6
      } else {
        pausedAt = clockLocked()
      }
      paused.toggle()
      condition.broadcast()
    }
  }

  /// Moves the clock by `seconds` from the frame on screen, within the video.
  func seek(by seconds: Int64) {
    let from = shownMicroseconds
    locked {
      ended = false
      seek(toLocked: min(max(0, from + seconds * 1_000_000), max(0, lengthMicroseconds - 1)))
    }
  }

  /// The pixels the frames are scaled to fit from now on (the window was resized).
  func fit(_ area: PixelSize) {
    locked { self.area = area }
  }

  /// Stops the thread (a request its helper is working on ends at once); the frame on
  /// screen is wiped.
  func stop() {
    cancellation?.cancel()
    locked {
      stopped = true
      handedOver?.image?.pixels.wipeShared()
      handedOver = nil
      condition.broadcast()
    }
    onScreen?.image?.pixels.wipeShared()
    onScreen = nil
  }

  // MARK: The decoding thread

  /// Decodes until stopped, then lets go of the picture (a helper's session ends then).
  private func decode() {
    decodeFrames()
    let finished: MovingPicture? = locked {
      defer { picture = nil }
      return picture
    }
    // Released here, outside the lock: ending a session talks to its helper.
    withExtendedLifetime(finished) {}
  }

  private func decodeFrames() {
    while let seek = waitForWork(), let picture {
      do {
        if let seek { try picture.seek(toMicroseconds: seek) }
        guard let frame = try picture.nextFrame(scaledTo: scale) else {
          try reachedEnd()
          continue
        }
        guard frame.image != nil else {
          locked { droppedFrames += 1 }
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
    locked {
      failure = error
      stopped = true
    }
    FullScreenTerminal.wake()
  }

  /// Waits until a frame is wanted; the seek to make first (`.some(nil)`: none), or nil
  /// once stopped.
  private func waitForWork() -> Int64?? {
    condition.lock()
    defer { condition.unlock() }
    while !stopped && paused && !needsFrame && seekTarget == nil { condition.wait() }
    if stopped { return nil }
    let seek = seekTarget
    seekTarget = nil
    return .some(seek)
  }

  /// The size to scale a frame of `time` to, or nil when it is late (dropped).
  private func scale(_ time: Int64) -> PixelSize? {
    locked {
      if seekTarget != nil { return nil }
      let late = time < clockLocked() - Self.lateness
      let starved = !paused && FullScreenTerminal.now() - lastHandedOver > Self.longestWithoutFrame
      if time < seekedTo - Self.lateness || (late && !starved) { return nil }
      return picture?.shownSize.fitted(in: area)
    }
  }

  /// Waits for `frame`'s time on the clock (at once when paused: it is the frame a seek
  /// went to), then hands it over and wakes the viewer. A seek meanwhile drops it.
  private func handOver(_ frame: MovingFrame) {
    condition.lock()
    while !stopped, seekTarget == nil {
      if paused {
        // Paused before its time: it waits for the resume, unless a seek asked for it.
        if needsFrame { break }
        condition.wait()
        continue
      }
      let early = frame.microseconds - clockLocked()
      if early <= 0 { break }
      _ = condition.wait(until: Date(timeIntervalSinceNow: Double(early) / 1e6))
    }
    let wanted = !stopped && seekTarget == nil
    if wanted {
      handedOver?.image?.pixels.wipeShared()
      handedOver = frame
      needsFrame = false
      lastHandedOver = FullScreenTerminal.now()
    } else {
      frame.image?.pixels.wipeShared()
    }
    condition.unlock()
    if wanted { FullScreenTerminal.wake() }
  }

  /// At the end: an animation starts over; a video stays on its last frame, paused.
  private func reachedEnd() throws {
    if !isVideo {
      try picture?.seek(toMicroseconds: 0)
      locked { origin = FullScreenTerminal.now() }
      return
    }
    locked {
      ended = true
      paused = true
      pausedAt = clockLocked()
      needsFrame = false
    }
    FullScreenTerminal.wake()
  }

  // MARK: The clock

  /// Where the clock stands, in microseconds; with the lock held.
  private func clockLocked() -> Int64 {
    paused ? pausedAt : Int64((FullScreenTerminal.now() - origin) * 1e6)
  }

  private func seek(toLocked target: Int64) {
    seekTarget = target
    seekedTo = target
    pausedAt = target
    origin = FullScreenTerminal.now() - Double(target) / 1e6
    needsFrame = true
    condition.broadcast()
  }

  private func locked<Result>(_ body: () -> Result) -> Result {
    condition.lock()
    defer { condition.unlock() }
    return body()
  }
}
