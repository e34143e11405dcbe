import XCTest

@testable import VaultCore

/// Window buffers that fit a huge page evenly are made a huge page at a time, aligned to it,
/// so that a direct read into one is one piece of memory; the limit holds either way.
final class WindowBuffersTests: XCTestCase {
  func testBuffersThatFitAHugePageComeOnePageAtATimeAlignedToIt() {
    let buffers = WindowBuffers(size: 1 << 20, limit: 5)
    let taken = (0..<5).compactMap { _ in buffers.take() }.map { Int(bitPattern: $0) }
    XCTAssertEqual(taken.count, 5)
    XCTAssertNil(buffers.take(), "no more than the limit")
    // Two huge pages of two buffers each, then the fifth on its own.
    for pair in [taken[0...1], taken[2...3]] {
      let page = pair.min()!
      XCTAssertEqual(page % WindowBuffers.hugePageSize, 0, "a huge page's start")
      XCTAssertEqual(pair.max()! - page, 1 << 20, "its two halves")
    }
    XCTAssertEqual(taken[4] % WindowBuffers.alignment, 0)
    buffers.giveBack(UnsafeMutableRawPointer(bitPattern: taken[1])!)
    XCTAssertEqual(buffers.take().map { Int(bitPattern: $0) }, taken[1], "given back, taken again")
  }

  func testBuffersThatDoNotFitEvenlyAreMadeOneByOne() {
    let buffers = WindowBuffers(size: 3 * WindowBuffers.alignment, limit: 3)
    XCTAssertEqual(buffers.buffersPerHugePage, 1)
    let taken = (0..<3).compactMap { _ in buffers.take() }
    XCTAssertEqual(taken.count, 3)
    XCTAssertTrue(taken.allSatisfy { Int(bitPattern: $0) % WindowBuffers.alignment == 0 })
    XCTAssertNil(buffers.take())
  }

  /// The bytes of a buffer can be written and read whole (the huge page is mapped).
  func testAHugePageBufferHoldsItsBytes() {
    let buffers = WindowBuffers(size: 1 << 20, limit: 2)
    let buffer = buffers.take()!
    buffer.initializeMemory(as: UInt8.self, repeating: 0x5A, count: 1 << 20)
    XCTAssertEqual(UnsafeRawBufferPointer(start: buffer, count: 1 << 20).filter { $0 != 0x5A }.count, 0)
  }
}
