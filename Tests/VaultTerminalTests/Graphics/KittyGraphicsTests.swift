import Foundation
import VaultCore
import XCTest

@testable import VaultTerminal

/// The kitty graphics commands, parsed back: direct transmission only, exact chunking, and
/// the pixels decode back from the chunks.
final class KittyGraphicsTests: XCTestCase {
  /// One `ESC _ G keys ; payload ESC \` command.
  struct Command {
    var keys: [String: String]
    var payload: String
  }

  /// Splits `bytes` into graphics commands; fails if anything else is in between.
  func commands(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [Command] {
    let text = String(decoding: bytes, as: UTF8.self)
    var result: [Command] = []
    var rest = Substring(text)
    while !rest.isEmpty {
      guard rest.hasPrefix("\u{1B}_G"), let end = rest.range(of: "\u{1B}\\") else {
        XCTFail("not a graphics command: \(rest.prefix(40).debugDescription)", file: file, line: line)
        return result
      }
      let body = rest[rest.index(rest.startIndex, offsetBy: 3)..<end.lowerBound]
      let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
      var keys: [String: String] = [:]
      for pair in parts[0].split(separator: ",") {
        let keyValue = pair.split(separator: "=", maxSplits: 1)
        XCTAssertEqual(keyValue.count, 2, String(pair), file: file, line: line)
        XCTAssertNil(keys[String(keyValue[0])], "key \(keyValue[0]) twice", file: file, line: line)
        keys[String(keyValue[0])] = String(keyValue[1])
      }
      result.append(Command(keys: keys, payload: parts.count > 1 ? String(parts[1]) : ""))
      rest = rest[end.upperBound...]
    }
    return result
  }

  func image(width: Int, height: Int) -> RGBImage {
    var generator = SystemRandomNumberGenerator()
    return RGBImage(
      width: width, height: height,
      pixels: (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) })
  }

  /// A frame appends the placement to an upload: in the upload's own buffer, so that the
  /// photo's encoded pixels are never copied to a larger one and freed unwiped.
  func testAnUploadHasRoomForItsPlacement() {
    var upload = KittyGraphics.transmit(
      id: 1, image: RGBImage(width: 64, height: 48, pixels: [UInt8](repeating: 7, count: 64 * 48 * 3)))
    let buffer = upload.withUnsafeBufferPointer { $0.baseAddress }
    upload += Array("\u{1B}[12;1H".utf8)
    upload += KittyGraphics.place(
      id: 1, placement: 1, source: PixelRect(x: 0, y: 0, width: 64, height: 48), columns: 999, rows: 999)
    XCTAssertEqual(upload.withUnsafeBufferPointer { $0.baseAddress }, buffer)
  }

  func testTransmissionIsDirectChunkedAndDecodesBackToThePixels() throws {
    // 1 pixel (one short chunk), exactly one full chunk (1024 pixels = 3072 bytes = 4096
    // characters), one byte over, and a photo-sized image of many chunks.
    for (width, height) in [(1, 1), (32, 32), (1, 1025), (7, 1), (640, 427)] {
      let picture = image(width: width, height: height)
      let sent = commands(KittyGraphics.transmit(id: 7, image: picture))
      let expectedChunks = (Base64.encodedCount(picture.pixels.count) + 4095) / 4096
      XCTAssertEqual(sent.count, expectedChunks, "\(width)×\(height)")
      XCTAssertEqual(
        sent.first?.keys,
        [
          "a": "t", "t": "d", "f": "24", "s": "\(width)", "v": "\(height)", "i": "7", "q": "2",
          "m": sent.count == 1 ? "0" : "1",
        ])
      for (index, command) in sent.enumerated() {
        XCTAssertLessThanOrEqual(command.payload.utf8.count, KittyGraphics.chunkSize)
        XCTAssertEqual(command.keys["m"], index == sent.count - 1 ? "0" : "1")
        XCTAssertEqual(command.keys["q"], "2")
        if index > 0 {
          XCTAssertEqual(Set(command.keys.keys), ["m", "q"], "only the first chunk describes the image")
        }
        if index < sent.count - 1 {
          XCTAssertEqual(command.payload.utf8.count, KittyGraphics.chunkSize, "only the last chunk is short")
          XCTAssertFalse(command.payload.contains("="), "padding only at the very end")
        }
        XCTAssertNotEqual(command.keys["t"].map { ["f", "t", "s"].contains($0) }, true)
      }
      let decoded = try XCTUnwrap(Data(base64Encoded: sent.map(\.payload).joined()))
      XCTAssertEqual([UInt8](decoded), picture.pixels, "\(width)×\(height)")
    }
  }

  func testNoCommandNamesAFileOrSharedMemory() {
    let all =
      KittyGraphics.transmit(id: 1, image: image(width: 3, height: 2))
      + KittyGraphics.place(
        id: 1, placement: 1, source: PixelRect(x: 0, y: 0, width: 3, height: 2), columns: 1, rows: 1)
      + KittyGraphics.delete(id: 1) + KittyGraphics.deleteAll()
    for command in commands(all) {
      XCTAssertTrue(command.keys["t"] == nil || command.keys["t"] == "d", "\(command.keys)")
    }
    let text = String(decoding: all, as: UTF8.self)
    for medium in ["t=f", "t=t", "t=s"] { XCTAssertFalse(text.contains(medium)) }
  }

  func testPlacementShowsASourceRectangleOnCellsWithoutMovingTheCursor() {
    let sent = commands(
      KittyGraphics.place(
        id: 3, placement: 9, source: PixelRect(x: 120, y: 40, width: 800, height: 600), columns: 80, rows: 30)
    )
    XCTAssertEqual(sent.count, 1)
    XCTAssertEqual(
      sent[0].keys,
      [
        "a": "p", "i": "3", "p": "9", "x": "120", "y": "40", "w": "800", "h": "600", "c": "80", "r": "30",
        "C": "1",
        "q": "1",  // kitty answers a failed placement only
      ])
    XCTAssertEqual(sent[0].payload, "")
  }

  func testBlankIsOneBlackPixelUnderTheSameID() throws {
    let sent = commands(KittyGraphics.blank(id: 42))
    XCTAssertEqual(
      sent.map(\.keys), [["a": "t", "t": "d", "f": "24", "s": "1", "v": "1", "i": "42", "q": "2", "m": "0"]])
    XCTAssertEqual([UInt8](try XCTUnwrap(Data(base64Encoded: sent[0].payload))), [0, 0, 0])
  }

  func testDeletion() {
    XCTAssertEqual(
      commands(KittyGraphics.delete(id: 42)).map(\.keys), [["a": "d", "d": "I", "i": "42", "q": "2"]])
    XCTAssertEqual(commands(KittyGraphics.deleteAll()).map(\.keys), [["a": "d", "d": "A", "q": "2"]])
  }

  func testBase64MatchesFoundationForEveryTailLength() {
    for count in Array(0...12) + [3071, 3072, 3073, 100_000] {
      let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
      // Room for libsodium's NUL after the text, as the upload buffer has.
      var encoded = [UInt8](repeating: 0, count: Base64.encodedCount(count) + 1)
      bytes.withUnsafeBytes { source in
        encoded.withUnsafeMutableBytes { Base64.encode(source, into: $0.baseAddress!) }
      }
      XCTAssertEqual(
        String(decoding: encoded.dropLast(), as: UTF8.self), Data(bytes).base64EncodedString(),
        "\(count) bytes")
    }
  }
}
