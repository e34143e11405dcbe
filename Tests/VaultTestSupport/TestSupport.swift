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
