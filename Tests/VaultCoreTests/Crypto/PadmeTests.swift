import XCTest

@testable import VaultCore

final class PadmeTests: XCTestCase {
  func testKnownValues() {
    // From the formula of the PURBs paper, worked by hand: 9 = 0b1001 has E = 3, S = 2, so
    // its last bit is rounded up (10); 129 = 0b10000001 has E = 7, S = 3, so its last 4 bits
    // are (144); 2^k is never padded.
    let known = [
      (0, 0), (1, 1), (2, 2), (3, 3), (8, 8), (9, 10), (17, 18), (33, 36), (129, 144), (257, 272),
      (1000, 1024), (65_536, 65_536), (65_537, 67_584), (2_841_233, 2_883_584), (12_345_678, 12_582_912),
    ]
    for (length, padded) in known {
      XCTAssertEqual(Padme.paddedLength(length), padded, "\(length)")
    }
  }

  func testSmallLengthsAreNotPadded() {
    // Up to 8 nothing is rounded: E − S ≤ 0 below 8, and 8 is already even.
    for length in 0...8 {
      XCTAssertEqual(Padme.paddedLength(length), length)
    }
  }

  func testNeverSmallerMonotoneIdempotentAndAtMost12PercentOver() {
    var previous = 0
    for length in 0...(1 << 20) {
      let padded = Padme.paddedLength(length)
      XCTAssertGreaterThanOrEqual(padded, length)
      XCTAssertGreaterThanOrEqual(padded, previous, "\(length)")
      XCTAssertLessThanOrEqual(Double(padded - length), 0.12 * Double(length), "\(length)")
      if padded != length { XCTAssertEqual(Padme.paddedLength(padded), padded, "\(length)") }
      previous = padded
    }
    // Photo and video sizes up to a terabyte, around each power of two and between.
    var generator = SeededGenerator(seed: 9)
    var lengths = (20...40).flatMap { [(1 << $0) - 1, 1 << $0, (1 << $0) + 1] }
    lengths += (0..<10_000).map { _ in Int.random(in: (1 << 20)...(1 << 40), using: &generator) }
    for length in lengths {
      let padded = Padme.paddedLength(length)
      XCTAssertGreaterThanOrEqual(padded, length)
      XCTAssertLessThanOrEqual(Double(padded - length), 0.12 * Double(length), "\(length)")
      XCTAssertLessThanOrEqual(Padme.paddedLength(length - 1), padded, "\(length)")
      XCTAssertEqual(Padme.paddedLength(padded), padded, "\(length)")
    }
  }

  func testABucketHoldsManyLengths() {
    // What padding is for: lengths that differ land on one size. Around 3 MB (a photo),
    // a bucket is 2^(21 − 5) = 65536 bytes wide.
    XCTAssertEqual(Padme.paddedLength(2_818_049), Padme.paddedLength(2_883_584))
    XCTAssertEqual(Padme.paddedLength(2_818_049), 2_883_584)
    XCTAssertEqual(Padme.paddedLength(2_818_048), 2_818_048)
  }
}
