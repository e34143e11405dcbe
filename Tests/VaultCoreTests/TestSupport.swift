import Foundation
@_exported import VaultTestSupport
import XCTest

@testable import VaultCore

func password(_ text: String) throws -> Password {
  try Password(utf8: Array(text.utf8))
}

/// A vault with the cheapest KDF the format accepts.
func makeVault(in folder: String) throws -> Vault {
  try Vault.create(at: folder + "/vault", kdf: KDFParameters(preset: .interactive))
}
