import XCTest

@testable import VaultCore
@testable import VaultTerminal

final class PagePositionTests: XCTestCase {
  func testNextAndPreviousStopAtTheEnds() {
    var page = PagePosition(index: 0)
    XCTAssertFalse(page.previous(count: 3))
    XCTAssertEqual(page.index, 0)
    XCTAssertTrue(page.next(count: 3))
    XCTAssertTrue(page.next(count: 3))
    XCTAssertEqual(page.index, 2)
    XCTAssertFalse(page.next(count: 3))
    XCTAssertEqual(page.index, 2)
    XCTAssertTrue(page.previous(count: 3))
    XCTAssertEqual(page.index, 1)
  }

  func testFirstAndLast() {
    var page = PagePosition(index: 4)
    page.first()
    XCTAssertEqual(page.index, 0)
    page.last(count: 10)
    XCTAssertEqual(page.index, 9)
    page.last(count: 0)
    XCTAssertEqual(page.index, 0)
  }

  func testGoToANumberIsOneBasedAndStaysWhenOutOfRange() {
    var page = PagePosition(index: 2)
    XCTAssertTrue(page.go(toNumber: 5, count: 5))
    XCTAssertEqual(page.index, 4)
    XCTAssertTrue(page.go(toNumber: 1, count: 5))
    XCTAssertEqual(page.index, 0)
    page.index = 3
    XCTAssertFalse(page.go(toNumber: 0, count: 5))
    XCTAssertFalse(page.go(toNumber: 6, count: 5))
    XCTAssertFalse(page.go(toNumber: -1, count: 5))
    XCTAssertFalse(page.go(toNumber: 1, count: 0))
    XCTAssertEqual(page.index, 3)
  }

  func testAfterDeletionShowsTheNextPhotoOrTheNewLastOne() {
    var page = PagePosition(index: 1)
    XCTAssertTrue(page.afterDeletion(count: 4))  // the old index 2 moved into 1
    XCTAssertEqual(page.index, 1)
    page.index = 3
    XCTAssertTrue(page.afterDeletion(count: 3))  // the last photo went: the new last one
    XCTAssertEqual(page.index, 2)
    page.index = 0
    XCTAssertFalse(page.afterDeletion(count: 0))  // the only photo went
    XCTAssertEqual(page.index, 0)
  }

  func testACountThatShrankUnderUsIsClamped() {
    var page = PagePosition(index: 9)
    page.clamp(count: 5)
    XCTAssertEqual(page.index, 4)
    page.index = 9
    XCTAssertFalse(page.next(count: 5))
    XCTAssertEqual(page.index, 4)
    page.index = 9
    XCTAssertTrue(page.previous(count: 5))
    XCTAssertEqual(page.index, 3)
    page.index = -2
    page.clamp(count: 5)
    XCTAssertEqual(page.index, 0)
    page.index = 3
    page.clamp(count: 0)
    XCTAssertEqual(page.index, 0)
  }
}
