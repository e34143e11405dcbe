import Foundation

/// The limits every decoder helper runs under (docs/SECURITY.md, "Hostile files"): the memory it may
/// add to what it has mapped at start, the wall-clock time one request may take (the
/// parent kills it then), and its processor time over its whole life (a backstop; the
/// parent retires a worker at half of it).
public struct DecoderLimits: Sendable, Equatable {
  /// What docs/LIMITS.md promises by default: 512 MiB.
  public static let defaultMemoryMiB = 512
  public static let defaultDeadline = 60.0

  public var memoryMiB: Int
  /// Seconds one request may take, from the parent's clock.
  public var deadline: Double
  public var cpuSeconds: Int

  public init(memoryMiB: Int = defaultMemoryMiB, deadline: Double = defaultDeadline, cpuSeconds: Int = 3600) {
    self.memoryMiB = memoryMiB
    self.deadline = deadline
    self.cpuSeconds = cpuSeconds
  }

  public var memoryBytes: Int { memoryMiB << 20 }

  /// The largest shared memory for pixels that a worker and its helper keep from picture
  /// to picture (a picture shown on a 4K screen fits): it counts in the helper's address
  /// space while kept, so an eighth of its memory at most; larger is made for one picture.
  var keptSharedMemoryBytes: Int { memoryBytes / 8 }

  /// The range `--decoder-memory` accepts (MiB): below 64 nothing decodes; above 64 GiB
  /// is no limit.
  public static let memoryRange = 64...65_536

  var deadlineNanoseconds: UInt64 { UInt64(min(max(deadline, 0.001), 86_400) * 1e9) }
}
