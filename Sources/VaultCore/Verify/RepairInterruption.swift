/// Where an interruption stopped `vault verify --repair`.
public enum RepairInterruption: Equatable, Sendable {
  /// While checking the photos: nothing was changed.
  case checking(done: Int, total: Int)
  /// While remaking thumbnails: the rest of the repair was done.
  case remakingThumbnails(done: Int, total: Int)
}
