import XCTest

@testable import VaultCore

/// A remote found unreachable fails later reads at once for a while, then is tried again;
/// other failures are not kept.
final class UnreachableRemotesTests: XCTestCase {
  func testAnUnreachableRemoteIsKeptForAWhile() {
    let remotes = UnreachableRemotes()
    let second: UInt64 = 1_000_000_000
    let unreachable = RemoteError.unreachable(remote: "box:", reason: "connection refused")
    remotes.note(RemoteError.notFound(remote: "box:", path: "current/x"), of: "box:", now: 0)
    XCTAssertNil(remotes.recent("box:", now: 1))
    remotes.note(unreachable, of: "box:", now: 10 * second)
    XCTAssertEqual(remotes.recent("box:", now: 11 * second), unreachable)
    XCTAssertNil(remotes.recent("other:", now: 11 * second))
    XCTAssertEqual(remotes.recent("box:", now: (10 + UnreachableRemotes.memory) * second - 1), unreachable)
    XCTAssertNil(remotes.recent("box:", now: (10 + UnreachableRemotes.memory) * second))
    XCTAssertNil(remotes.recent("box:", now: 11 * second), "tried again once forgotten")
    // A remote back within seconds is read again within seconds (the mount failed for 30).
    remotes.note(unreachable, of: "box:", now: 100 * second)
    XCTAssertNil(remotes.recent("box:", now: 106 * second))
  }
}
