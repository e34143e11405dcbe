import Foundation
import XCTest

@testable import VaultCore

/// The one Base64, on libsodium: RFC 4648's vectors, Foundation's output at every length
/// around a chunk, and encoding into a caller's buffer (the kitty payloads).
final class Base64Tests: XCTestCase {
  /// RFC 4648 §10.
  static let vectors = [
    "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
    "foobar": "Zm9vYmFy",
  ]

  func testRFC4648Vectors() {
    for (input, output) in Self.vectors {
      XCTAssertEqual(Base64.encoded(Array(input.utf8)), output, input)
      XCTAssertEqual(Base64.decoded(output), Array(input.utf8), output)
      XCTAssertEqual(Base64.encodedCount(input.utf8.count), output.utf8.count, input)
    }
  }

  func testMatchesFoundationAtEveryLengthAndByte() {
    var generator = SystemRandomNumberGenerator()
    for count in 0...300 {
      let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
      XCTAssertEqual(Base64.encoded(bytes), Data(bytes).base64EncodedString(), "\(count) bytes")
    }
    let every = (0...255).map { UInt8($0) }
    XCTAssertEqual(Base64.encoded(every), Data(every).base64EncodedString())
    XCTAssertEqual(Base64.decoded(Data(every).base64EncodedString()), every)
  }

  func testURLSafeAlphabetWithoutPadding() {
    XCTAssertEqual(Base64.encoded([0xFB, 0xFF], variant: .urlSafeUnpadded), "-_8")
    XCTAssertEqual(Base64.encoded([0xFB, 0xFF]), "+/8=")
    XCTAssertEqual(Base64.encodedCount(32, variant: .urlSafeUnpadded), 43)
  }

  func testDecodingRefusesWhatIsNotBase64() {
    for text in ["Zg", "Zm9v!", "Zm9v Zm9v", "Z===", "-_8="] {
      XCTAssertNil(Base64.decoded(text), text)
    }
  }

  func testEncodesIntoTheCallersBufferAndNothingPastIt() {
    let bytes = Array("foobar".utf8)
    // Room for the text and libsodium's NUL; the guard bytes after it stay as they were.
    var buffer = [UInt8](repeating: 0xAA, count: Base64.encodedCount(bytes.count) + 1 + 4)
    bytes.withUnsafeBytes { source in
      buffer.withUnsafeMutableBytes { Base64.encode(source, into: $0.baseAddress!) }
    }
    XCTAssertEqual(String(decoding: buffer[..<8], as: UTF8.self), "Zm9vYmFy")
    XCTAssertEqual(Array(buffer[8...]), [0, 0xAA, 0xAA, 0xAA, 0xAA])
  }
}
