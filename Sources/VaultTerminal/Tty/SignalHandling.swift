import Foundation
import VaultCore

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP during a command that writes: the first asks the
/// command to stop cleanly (it finishes or discards the photo in hand, commits, removes
/// its temporary files, and ends with an `interrupted: …` line and status 130); a second
/// one exits at once with status 130, which is safe because every write is temp file →
/// fsync → rename, and the next writer cleans up what is left.
///
/// Commands install the handlers once they are past their prompts (a Ctrl-C at a
/// password or confirmation prompt ends the command as usual). A signal the process was
/// started with ignored (`nohup`) stays ignored.
public enum SignalHandling {
  /// The request the handlers make, checked by the loops of add, export and verify --repair.
  public static let interruption = Interruption()

  /// Exit status of an interrupted command (128 + SIGINT, as shells report Ctrl-C).
  public static let interruptedExitCode: Int32 = 130

  public static let signals = [SIGINT, SIGTERM, SIGHUP]

  /// Installs the handlers (once is enough; later calls change nothing).
  public static func install() {
    // The handler reads `interruption`: make it before any signal can arrive.
    _ = interruption.isRequested
    for signal in signals {
      var previous = sigaction()
      ProcessSignals.install(handleSignal, for: signal, flags: SA_RESTART, previous: &previous)
    }
  }

  /// Async-signal-safe: one atomic add, and `_exit` on the second signal.
  private static let handleSignal: @convention(c) (Int32) -> Void = { _ in
    if SignalHandling.interruption.request() > 1 { _exit(SignalHandling.interruptedExitCode) }
  }
}
