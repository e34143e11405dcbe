import Dispatch
import Foundation
import VaultCore

/// SIGINT, SIGTERM and SIGHUP for a server (`vault serve`): the first calls `onFirst` (which
/// stops the server: it ends the uploads in progress and prints the summary); a second
/// exits at once with status 130, which is safe because every commit is crash safe and the
/// next writer tidies what is left. A signal the process was started with ignored stays
/// ignored.
///
/// They arrive through dispatch sources, so `onFirst` may do anything. libdispatch then
/// owns those signals' actions for the rest of the process: once a source is registered it
/// installs a handler of its own, which hands the signal to its manager thread, and it
/// never installs it again; so nothing puts the earlier actions back.
public final class StopSignals {
  private var sources: [any DispatchSourceSignal] = []

  public init(onFirst: @escaping @Sendable () -> Void) {
    let requests = Interruption()
    for signal in SignalHandling.signals where !ProcessSignals.isIgnored(signal) {
      // Ignored until libdispatch's handler is there: the default action would end the
      // process.
      ProcessSignals.ignore(signal)
      let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
      source.setEventHandler {
        if requests.request() > 1 { _exit(SignalHandling.interruptedExitCode) }
        onFirst()
      }
      source.resume()
      sources.append(source)
    }
  }

  deinit {
    for source in sources { source.cancel() }
  }
}
