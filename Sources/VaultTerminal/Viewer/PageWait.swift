import Dispatch
import VaultCore

/// How long the page has shown one photo, for what is done only once it has stayed a while.
/// Asked again each frame; the first time it is asked for a photo, the clock starts and the
/// viewer is woken when the time is up, so that the frame after it does what waited.
struct PageWait {
  private let seconds: Double
  private let now: () -> Double
  private let wakeLater: (Double) -> Void
  private var started: (id: BlobID, since: Double)?

  /// `now` reads a monotonic clock in seconds; `wakeLater` wakes the viewer after that many
  /// seconds (tests pass their own).
  init(
    seconds: Double, now: @escaping () -> Double = FullScreenTerminal.now,
    wakeLater: @escaping (Double) -> Void = { seconds in
      DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { FullScreenTerminal.wake() }
    }
  ) {
    (self.seconds, self.now, self.wakeLater) = (seconds, now, wakeLater)
  }

  /// Whether the page has shown `id` for `seconds` since the first time this was asked of it.
  mutating func isOver(for id: BlobID) -> Bool {
    let time = now()
    if let started, started.id == id { return time >= started.since + seconds }
    started = (id, time)
    wakeLater(seconds)
    return false
  }
}
