import Foundation
import VaultCore
import XCTest

/// A fresh folder under the system's temporary folder, removed when the test ends.
public func makeTemporaryFolder(_ test: XCTestCase) throws -> String {
  let path = NSTemporaryDirectory() + "vault-test-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
  return path
}

/// The project's folder (this file is Tests/VaultTestSupport/TestSupport.swift).
public let projectPath: String = {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
}()

/// The project's Fixtures folder.
public let fixturesPath = projectPath + "/Fixtures"

public func fileBytes(_ path: String) throws -> [UInt8] {
  Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

public func writeBytes(_ bytes: [UInt8], to path: String) throws {
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// A small deterministic generator (SplitMix64), so that a failing run can be replayed
/// from its seed.
public struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Fixtures/progressive.jpg (64×48, 4:2:0, a few hundred bytes) with its frame header
/// claiming `width`×`height`: a tiny file that libjpeg decodes (its data ending early, with
/// a warning) only after allocating the coefficients of the whole declared picture, about
/// 3 bytes a pixel. Each size gives different bytes, so none is a duplicate of another.
public func progressiveJPEG(width: Int, height: Int) throws -> [UInt8] {
  var bytes = try fileBytes(fixturesPath + "/progressive.jpg")
  guard let frame = (0..<bytes.count - 9).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 }) else {
    throw CocoaError(.fileReadCorruptFile)
  }
  // FF C2, length (2 bytes), precision (1 byte), height (2 bytes), width (2 bytes).
  bytes[frame + 5] = UInt8(height >> 8)
  bytes[frame + 6] = UInt8(height & 0xFF)
  bytes[frame + 7] = UInt8(width >> 8)
  bytes[frame + 8] = UInt8(width & 0xFF)
  return bytes
}

/// A grayscale progressive JPEG, `side`×`side`, whose image data is `scans` identical AC
/// scans of nothing but end-of-band runs: a few bytes a scan, each a pass over every block
/// (a CPU bomb when there are thousands). Refinement order is not kept, so libjpeg warns
/// but decodes.
public func manyScanJPEG(side: Int, scans: Int) -> [UInt8] {
  func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
    [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
  }
  let size: [UInt8] = [UInt8(side >> 8), UInt8(side & 0xFF)]
  var bytes: [UInt8] = [0xFF, 0xD8]
  bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
  bytes += segment(0xC2, [8] + size + size + [1, 1, 0x11, 0])
  // AC table 0: one code of length 1 for the symbol 0xE0 (end of band run, 14 more bits);
  // DC table 0: one code for 0.
  bytes += segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0xE0])
  bytes += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
  var bits: [UInt8] = []
  var blocksLeft = ((side + 7) / 8) * ((side + 7) / 8)
  while blocksLeft > 0 {
    bits += [0] + [UInt8](repeating: 1, count: 14)  // a run of 32767 blocks
    blocksLeft -= 32767
  }
  while bits.count % 8 != 0 { bits.append(1) }
  var data: [UInt8] = []
  for start in stride(from: 0, to: bits.count, by: 8) {
    let byte = bits[start..<start + 8].reduce(0) { $0 << 1 | $1 }
    data.append(byte)
    if byte == 0xFF { data.append(0) }
  }
  let scan = segment(0xDA, [1, 1, 0x00, 1, 0x3F, 0])
  for _ in 0..<scans { bytes += scan + data }
  return bytes + [0xFF, 0xD9]
}

/// Checks that `image` is `width`×`height` and shows red, green, blue and white quadrants
/// (left to right, top to bottom), as the orientation fixtures do when upright.
public func assertUprightQuadrants(
  _ image: RGBImage, width: Int = 48, height: Int = 32, _ name: String, file: StaticString = #filePath,
  line: UInt = #line
) {
  XCTAssertEqual([image.width, image.height], [width, height], name, file: file, line: line)
  let (left, right, top, bottom) = (width / 4, width * 3 / 4, height / 4, height * 3 / 4)
  for (x, y, expected) in [
    (left, top, [255, 0, 0]), (right, top, [0, 255, 0]), (left, bottom, [0, 0, 255]),
    (right, bottom, [255, 255, 255]),
  ] {
    let i = (y * image.width + x) * 3
    guard i + 3 <= image.pixels.count else { return }
    let actual = image.pixels[i..<(i + 3)].map(Int.init)
    XCTAssertTrue(
      zip(actual, expected).allSatisfy { abs($0 - $1) < 40 }, "\(name) at \(x),\(y): \(actual)", file: file,
      line: line)
  }
}
