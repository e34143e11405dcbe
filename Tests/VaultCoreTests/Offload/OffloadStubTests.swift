import XCTest

@testable import VaultCore

/// The stub's text: what vault writes reads back; anything else is not a stub.
final class OffloadStubTests: XCTestCase {
  let md5 = "0123456789abcdef0123456789abcdef"

  func testAStubReadsBack() throws {
    let stub = try XCTUnwrap(OffloadStub(size: 2_841_233, md5: md5))
    XCTAssertEqual(String(decoding: stub.text, as: UTF8.self), "2841233 \(md5)\n")
    XCTAssertEqual(OffloadStub(text: stub.text), stub)
    XCTAssertEqual(OffloadStub(text: Array("0 \(md5)\n".utf8))?.size, 0)
  }

  func testAnythingElseIsNotAStub() {
    for text in [
      "2841233 \(md5)", "2841233  \(md5)\n", "02841233 \(md5)\n", "-1 \(md5)\n", "+5 \(md5)\n",
      "5 \(md5.uppercased())\n", "5 \(md5.dropLast())\n", "5 \(md5)0\n", " \(md5)\n", "5 \(md5)\n\n",
      "99999999999999999999 \(md5)\n", "", "9223372036854775807 \(md5)\n",
      "\(1 << 50) \(md5)\n",
    ] {
      XCTAssertNil(OffloadStub(text: Array(text.utf8)), text.debugDescription)
    }
  }
}
