import Foundation
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
