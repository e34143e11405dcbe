import Foundation
import XCTest

@testable import VaultCore

/// A fresh folder under the system's temporary folder, removed when the test ends.
func makeTemporaryFolder(_ test: XCTestCase) throws -> String {
  let path = NSTemporaryDirectory() + "vault-test-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
  return path
}

/// The project's Fixtures folder.
let fixturesPath: String = {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures").path
}()

func password(_ text: String) throws -> Password {
  try Password(utf8: Array(text.utf8))
}

/// A vault with the cheapest KDF the format accepts.
func makeVault(in folder: String) throws -> Vault {
  try Vault.create(at: folder + "/vault", kdf: KDFParameters(preset: .interactive))
}

func fileBytes(_ path: String) throws -> [UInt8] {
  Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeBytes(_ bytes: [UInt8], to path: String) throws {
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}
