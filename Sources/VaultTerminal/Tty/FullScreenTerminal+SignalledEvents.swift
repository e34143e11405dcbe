import Synchronization

/// What signal handlers and other threads asked the event loop for (`ScreenSignals.pending`),
/// taken one at a time.
extension FullScreenTerminal {
  /// A quit, a redraw or a resize that a signal or another thread asked for.
  func takeSignalledEvent() -> TerminalEvent? {
    let pending = ScreenSignals.pending.load(ordering: .sequentiallyConsistent)
    if pending & ScreenSignals.Event.quit.rawValue != 0 { return .quit }
    for (event, result) in [(ScreenSignals.Event.redraw, TerminalEvent.redraw), (.resize, .resize)]
    where takeSignalledEvent(event) {
      return result
    }
    return nil
  }

  /// Whether `event` was asked for (it is then taken).
  func takeSignalledEvent(_ event: ScreenSignals.Event) -> Bool {
    let pending = ScreenSignals.pending.load(ordering: .sequentiallyConsistent)
    guard pending & event.rawValue != 0 else { return false }
    ScreenSignals.pending.bitwiseAnd(~event.rawValue, ordering: .sequentiallyConsistent)
    return true
  }
}
