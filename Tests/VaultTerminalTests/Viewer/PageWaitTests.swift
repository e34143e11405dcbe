import VaultCore
import XCTest

@testable import VaultTerminal

/// What the viewer does only once a photo has stayed on the page a while (kitty: its whole
/// original sent ahead for zooming) waits for that photo's own time, and wakes the viewer then.
final class PageWaitTests: XCTestCase {
  let first = BlobID(hex: String(repeating: "1", count: 32))!
  let second = BlobID(hex: String(repeating: "2", count: 32))!

  func testTheTimeCountsFromTheFirstAskForEachPhoto() {
    var clock = 100.0
    var wakes: [Double] = []
    var wait = PageWait(seconds: 0.5, now: { clock }, wakeLater: { wakes.append($0) })
    XCTAssertFalse(wait.isOver(for: first))
    XCTAssertEqual(wakes, [0.5], "the viewer is woken when the time is up")
    clock += 0.4
    XCTAssertFalse(wait.isOver(for: first))
    clock += 0.1
    XCTAssertTrue(wait.isOver(for: first))
    XCTAssertEqual(wakes, [0.5], "woken once a photo")
    // Paging on starts the clock again for the next photo, and for the first one back.
    XCTAssertFalse(wait.isOver(for: second))
    clock += 0.6
    XCTAssertFalse(wait.isOver(for: first))
    XCTAssertEqual(wakes, [0.5, 0.5, 0.5])
  }
}
