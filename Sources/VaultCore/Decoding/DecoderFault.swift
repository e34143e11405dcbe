/// What the test-only `fault` request asks a helper to do, to show that its limits hold.
/// Harmless in a release: only the parent sends requests, and it sends this one only when
/// a test asks it to.
public enum DecoderFault: UInt8, Sendable, CaseIterable {
  /// Open a file (the filter kills it: SIGSYS).
  case open = 1
  /// Make a socket (SIGSYS).
  case socket = 2
  /// Start another program (SIGSYS).
  case execve = 3
  /// Spin without a system call until the parent's deadline kills it.
  case spin = 4
  /// Allocate until the address space is full.
  case exhaustMemory = 5
  /// Signal another process (init, with signal 0: harmless if it were allowed) (SIGSYS).
  case signalOtherProcess = 6
  /// Map executable memory (SIGSYS).
  case executableMemory = 7
  /// Spin, as `spin` does, while decoding the next frame of what plays: a frame that never
  /// comes.
  case spinAtNextFrame = 8
}
