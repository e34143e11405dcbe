import Foundation
import XCTest

@testable import VaultCore

/// One path component from any name: property tests over random bytes (decoded as UTF-8,
/// so invalid sequences become U+FFFD) and random scalars, seeded; a failure prints its
/// seed.
final class PathComponentTests: XCTestCase {
  /// Random text: raw bytes, or scalars drawn from the ranges that trouble names.
  func randomName(_ random: inout SeededGenerator) -> String {
    if Bool.random(using: &random) {
      let bytes = (0..<Int.random(in: 0...300, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      return String(decoding: bytes, as: UTF8.self)
    }
    let ranges: [ClosedRange<UInt32>] = [
      0...0x7F, 0x80...0x9F, 0x300...0x36F, 0x200B...0x206F, 0x4E00...0x4E20,
    ]
    var scalars = String.UnicodeScalarView()
    for _ in 0..<Int.random(in: 0...120, using: &random) {
      let range = ranges.randomElement(using: &random)!
      scalars.append(Unicode.Scalar(UInt32.random(in: range, using: &random))!)
    }
    return String(scalars)
  }

  func testEverySafeNameIsOneShortComponentThatShowsAsItself() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<3000 {
      let name = randomName(&random)
      let safe = PathComponent.safe(name, fallback: "photo")
      let message =
        "\(Array(name.unicodeScalars.map(\.value))) gave \(Array(safe.unicodeScalars.map(\.value))) (seed \(seed))"
      XCTAssertFalse(safe.isEmpty, message)
      XCTAssertLessThanOrEqual(safe.utf8.count, PathComponent.maximumBytes, message)
      XCTAssertFalse(PathComponent.holdsSeparator(safe), message)
      XCTAssertFalse(safe.unicodeScalars.contains(where: TerminalSafeText.isUnsafe), message)
      XCTAssertFalse(PathComponent.readsAsDots(safe), message)
      XCTAssertEqual(PathComponent.safe(safe, fallback: "photo"), safe, "made safe twice: " + message)
      if name.utf8.count <= PathComponent.maximumBytes,
        !name.unicodeScalars.contains(where: PathComponent.isReplaced),
        !PathComponent.readsAsDots(name)
      {
        XCTAssertEqual(safe, name, "a name that is safe is kept byte for byte: " + message)
      }
    }
  }

  func testNumberedNamesStayShortDistinctAndKeepTheirExtension() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<1000 {
      let safe = PathComponent.safe(
        randomName(&random) + [".jpg", ".HEIC", "", ".x"].randomElement(using: &random)!, fallback: "photo")
      let numbered = (0..<5).map { PathComponent.numbered(safe, $0) } + [PathComponent.numbered(safe, 12345)]
      XCTAssertEqual(Set(numbered).count, numbered.count, "\(safe) (seed \(seed))")
      let dotExtension =
        safe == PathComponent.stem(of: safe) ? "" : String(safe.dropFirst(PathComponent.stem(of: safe).count))
      for name in numbered {
        XCTAssertLessThanOrEqual(name.utf8.count, PathComponent.maximumBytes, "\(name) (seed \(seed))")
        XCTAssertTrue(name.hasSuffix(dotExtension), "\(name) lost \(dotExtension) (seed \(seed))")
      }
    }
  }

  func testTheLastComponentHoldsNoSeparator() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<2000 {
      let path = randomName(&random)
      let last = PathComponent.lastComponent(of: path, backslashes: true)
      let (bytes, tail) = (Array(path.utf8), Array(last.utf8))
      let separators = [UInt8(ascii: "/"), UInt8(ascii: "\\")]
      XCTAssertEqual(Array(bytes.suffix(tail.count)), tail, "(seed \(seed))")
      if tail.count < bytes.count {
        XCTAssertTrue(
          separators.contains(bytes[bytes.count - tail.count - 1]), "cut after a separator (seed \(seed))")
      }
      XCTAssertFalse(tail.contains { separators.contains($0) }, "(seed \(seed))")
    }
  }
}
