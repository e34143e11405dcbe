import XCTest

@testable import VaultCore

/// VaultCore never names a CLI command or flag: the CLI words its hints.
final class VaultErrorWordingTests: XCTestCase {
  func testErrorsNameNoCommandOrFlag() {
    let errors: [VaultError] = [
      .vaultNotFound(path: "/photos/vault"),
      .damagedIndex(path: "/photos/vault/space/Journal", reason: "its contents do not parse"),
      .nothingSelected(action: "deleting"),
    ]
    for error in errors {
      XCTAssertFalse(error.description.contains("'vault "), error.description)
      XCTAssertFalse(error.description.contains("vault select"), error.description)
      XCTAssertFalse(error.description.contains("--"), error.description)
    }
  }
}
