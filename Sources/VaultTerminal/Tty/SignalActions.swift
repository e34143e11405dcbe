import Foundation

/// The one rule every signal handler vault installs follows (the screen's, the prompts',
/// the writers' interruption and `serve`'s): a signal the process was started with ignored
/// (`nohup`, a shell without job control, a service manager) stays ignored, so that vault
/// never undoes what whoever started it asked for.
public enum SignalActions {
  /// Whether `action` ignores its signal.
  public static func ignores(_ action: sigaction) -> Bool {
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
  /// the handler is installed (a handler may chain to it). Returns whether it was installed.
  @discardableResult
  public static func install(
    _ handler: @convention(c) (Int32) -> Void, for signal: Int32, flags: Int32, keepingIgnored: Bool = true,
    previous: inout sigaction
  ) -> Bool {
    sigaction(signal, nil, &previous)
    if keepingIgnored, ignores(previous) { return false }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = handler
    sigemptyset(&action.sa_mask)
    action.sa_flags = flags
    sigaction(signal, &action, nil)
    return true
  }
}
