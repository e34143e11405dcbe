import Foundation
import XCTest

@testable import VaultTerminal

/// `serve`'s stop signals: the first one calls back, through a dispatch source rather than
/// a handler, so the call back may do anything.
final class StopSignalsTests: XCTestCase {
  static let hangLimit = 60.0

  func action(of signal: Int32) -> Int {
    var action = sigaction()
    sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
  }

  func testTheFirstSignalCallsBack() {
    let stopped = expectation(description: "the call back")
    let signals = StopSignals { stopped.fulfill() }
    // Raised once libdispatch's handler took the signal over (it registers its source on a
    // thread of its own); until then it is ignored.
    let deadline = Date().addingTimeInterval(Self.hangLimit)
    while action(of: SIGHUP) == unsafeBitCast(SIG_IGN, to: Int.self), Date() < deadline { sched_yield() }
    raise(SIGHUP)
    wait(for: [stopped], timeout: Self.hangLimit)
    withExtendedLifetime(signals) {}
  }
}
