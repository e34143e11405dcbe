import Foundation

extension ProcessSignals {
  /// The signals whose default action ends the process at once, which the Swift runtime's
  /// backtracer catches instead: it pauses the process for seconds (a writer keeps the
  /// space's lock meanwhile) and prints each register's value with the 16 bytes of memory
  /// it points at, which may be key or plaintext bytes, to a stderr that is often a log.
  static let backtracedSignals = [SIGQUIT] + ScreenSignals.crashSignals

  /// Sets the actions every `vault` process starts with, before anything else runs:
  /// - SIGPIPE is ignored, so that a reader that goes away (`vault add … | head`) makes a
  ///   write fail instead of killing a command halfway through a batch (the originals it
  ///   had moved into place, but not listed yet, were left for the next writer to tidy);
  /// - SIGQUIT and the crash signals end the process as the system would (no core: core
  ///   dumps are off), without the backtracer's report (see `backtracedSignals`).
  /// A signal the process was started with ignored stays ignored.
  public static func setActionsAtStart() {
    if !isIgnored(SIGPIPE) { ignore(SIGPIPE) }
    for signal in backtracedSignals where !isIgnored(signal) { takeDefault(signal) }
  }
}
