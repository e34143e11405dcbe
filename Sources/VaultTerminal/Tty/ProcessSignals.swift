import Foundation

/// The one owner of the process's signal actions and masks: every part of vault that
/// catches a signal asks it, and no other Swift code calls `sigaction`, `signal` or
/// `pthread_sigmask`. The parts, and what each catches:
///
/// - every process, at start (`setActionsAtStart`): SIGPIPE ignored, SIGQUIT and the crash
///   signals back to their default action;
/// - a command that writes (`SignalHandling`): SIGINT, SIGTERM, SIGHUP ask it to stop;
/// - `serve` (`StopSignals`): the same three stop the server, through dispatch sources
///   (libdispatch then keeps their actions for the rest of the process);
/// - a prompt with echo off (`TerminalRestore`): SIGINT, SIGTERM, SIGHUP, SIGQUIT put the
///   terminal's settings back before the process ends;
/// - the full screen (`ScreenSignals`): those four, SIGTSTP, SIGCONT, SIGWINCH and the crash
///   signals, for as long as it is shown.
///
/// A part that takes a signal for a while gives it back the action it had (the prompt's
/// inside a command's, the screen's inside anything). Outside Swift: libfuse installs its
/// own handlers while a mount is served (`fuse_set_signal_handlers`), and the decoder
/// helper's C (CVaultSandbox) catches its own crashes.
///
/// One rule holds for all: a signal the process was started with ignored (`nohup`, a shell
/// without job control, a service manager) stays ignored, so that vault never undoes what
/// whoever started it asked for.
public enum ProcessSignals {
  /// Whether `action` ignores its signal.
  static func ignores(_ action: sigaction) -> Bool {
    unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
  }

  /// Whether `signal` is ignored now.
  public static func isIgnored(_ signal: Int32) -> Bool {
    var current = sigaction()
    sigaction(signal, nil, &current)
    return ignores(current)
  }

  /// Catches `signal` with `handler` (with `flags`, blocking nothing more while it runs),
  /// unless it is ignored and `keepingIgnored`. `previous` gets the action it had, before
  /// the handler is installed (a handler may chain to it, and `putBack` restores it).
  /// Returns whether it was installed.
  @discardableResult
  static func install(
    _ handler: @convention(c) (Int32) -> Void, for signal: Int32, flags: Int32, keepingIgnored: Bool = true,
    previous: UnsafeMutablePointer<sigaction>
  ) -> Bool {
    sigaction(signal, nil, previous)
    if keepingIgnored, ignores(previous.pointee) { return false }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = handler
    sigemptyset(&action.sa_mask)
    action.sa_flags = flags
    sigaction(signal, &action, nil)
    return true
  }

  /// Gives `signal` back the action `install` replaced. Async-signal-safe.
  static func putBack(_ signal: Int32, _ previous: UnsafePointer<sigaction>) {
    sigaction(signal, previous, nil)
  }

  /// Gives `signal` its default action, keeping the one it had in `replaced` (nil: not
  /// kept). Async-signal-safe: a handler uses it to die or stop of its signal.
  static func takeDefault(_ signal: Int32, replaced: UnsafeMutablePointer<sigaction>? = nil) {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = SIG_DFL
    sigemptyset(&action.sa_mask)
    sigaction(signal, &action, replaced)
  }

  /// Ignores `signal` until a dispatch source's handler takes it (`StopSignals`).
  static func ignore(_ signal: Int32) {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = SIG_IGN
    sigemptyset(&action.sa_mask)
    sigaction(signal, &action, nil)
  }

  // MARK: Masks

  /// Keeps `signals` off the calling thread from now on.
  static func block(_ signals: [Int32]) {
    var set = signalSet(signals)
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// Runs `body` with `signals` blocked on this thread.
  static func withBlocked<Result>(_ signals: [Int32], _ body: () throws -> Result) rethrows -> Result {
    var set = signalSet(signals)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &set, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    return try body()
  }

  /// Lets `signal` through on this thread while `body` runs, then blocks it again.
  /// Async-signal-safe: a handler, during which its own signal is blocked, uses it to
  /// raise that signal once more.
  static func withUnblocked(_ signal: Int32, _ body: () -> Void) {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signal)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    body()
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  private static func signalSet(_ signals: [Int32]) -> sigset_t {
    var set = sigset_t()
    sigemptyset(&set)
    for signal in signals { sigaddset(&set, signal) }
    return set
  }
}
