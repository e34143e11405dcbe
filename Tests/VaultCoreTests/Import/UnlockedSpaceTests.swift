import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// While `add` derives the key, one file fewer is decoded than there are helpers: the key
/// derivation holds a core and its memory; the other files wait, holding none of their
/// bytes, and hash first once the space is open.
final class UnlockedSpaceTests: XCTestCase {
  /// What a thread's `startDecodingWhileLocked` answered.
  private final class Answer: @unchecked Sendable {
    private let lock = NSLock()
    private var answer: Bool?
    var value: Bool? { lock.withLock { answer } }
    func set(_ value: Bool) { lock.withLock { answer = value } }
  }

  /// Asks for a turn on a thread of its own; the expectation is met once it is answered.
  private func askForATurn(_ unlocked: UnlockedSpace) -> (Answer, XCTestExpectation) {
    let answer = Answer()
    let answered = expectation(description: "a turn asked for on another thread is answered")
    Thread.detachNewThread {
      answer.set(unlocked.startDecodingWhileLocked())
      answered.fulfill()
    }
    return (answer, answered)
  }

  func testAFileWaitsForTheTurnAnotherLeaves() {
    let unlocked = UnlockedSpace(parallelism: 3)
    XCTAssertTrue(unlocked.startDecodingWhileLocked())
    XCTAssertTrue(unlocked.startDecodingWhileLocked())
    let (answer, answered) = askForATurn(unlocked)
    unlocked.endDecodingWhileLocked()
    wait(for: [answered], timeout: 60)
    XCTAssertEqual(answer.value, true)
  }

  func testFilesWaitingForATurnGoOnWithoutOneOnceTheSpaceCannotOpen() {
    let unlocked = UnlockedSpace(parallelism: 2)
    XCTAssertTrue(unlocked.startDecodingWhileLocked(), "two helpers: one file while the key is derived")
    let (answer, answered) = askForATurn(unlocked)
    unlocked.fail()
    wait(for: [answered], timeout: 60)
    XCTAssertEqual(answer.value, false)
    XCTAssertFalse(unlocked.startDecodingWhileLocked())
  }

  func testOneCoreStillDecodesAFileWhileTheKeyIsDerived() {
    XCTAssertTrue(UnlockedSpace(parallelism: 1).startDecodingWhileLocked())
  }
}
