import XCTest

@testable import VaultCore

final class KDFTests: XCTestCase {
  let salt = [UInt8](repeating: 7, count: 16)

  func testPresetsAreAccepted() throws {
    for preset in KDFParameters.Preset.allCases {
      XCTAssertNoThrow(try KDFParameters(preset: preset).validate(), "\(preset)")
    }
  }

  func testLimitsBelowInteractiveAreRefused() {
    let interactive = KDFParameters.Preset.interactive
    XCTAssertThrowsError(
      try KDFParameters(opsLimit: interactive.opsLimit - 1, memLimit: interactive.memLimit, salt: salt)
    ) {
      XCTAssertTrue("\($0)".contains("opslimit"))
    }
    XCTAssertThrowsError(
      try KDFParameters(opsLimit: interactive.opsLimit, memLimit: interactive.memLimit - 1, salt: salt)
    ) {
      XCTAssertTrue("\($0)".contains("memlimit"))
    }
  }

  func testLimitsFarAboveSensitiveAreRefused() {
    let interactive = KDFParameters.Preset.interactive
    XCTAssertThrowsError(
      try KDFParameters(
        opsLimit: KDFParameters.maximumOpsLimit + 1, memLimit: interactive.memLimit, salt: salt))
    XCTAssertThrowsError(
      try KDFParameters(
        opsLimit: interactive.opsLimit, memLimit: KDFParameters.maximumMemLimit + 1, salt: salt))
    XCTAssertNoThrow(
      try KDFParameters(opsLimit: KDFParameters.maximumOpsLimit, memLimit: interactive.memLimit, salt: salt))
  }

  func testSaltMustBeSixteenBytes() {
    let interactive = KDFParameters.Preset.interactive
    XCTAssertThrowsError(
      try KDFParameters(opsLimit: interactive.opsLimit, memLimit: interactive.memLimit, salt: [1, 2, 3]))
  }

  func testDerivationDependsOnPasswordAndSalt() throws {
    let interactive = KDFParameters.Preset.interactive
    let one = try KDFParameters(opsLimit: interactive.opsLimit, memLimit: interactive.memLimit, salt: salt)
    let other = try KDFParameters(
      opsLimit: interactive.opsLimit, memLimit: interactive.memLimit, salt: [UInt8](repeating: 8, count: 16))
    let a = try one.deriveKey(from: password("correct horse"))
    let b = try one.deriveKey(from: password("correct horse"))
    let c = try one.deriveKey(from: password("correct horsf"))
    let d = try other.deriveKey(from: password("correct horse"))
    XCTAssertTrue(a.isEqual(to: b))
    XCTAssertFalse(a.isEqual(to: c))
    XCTAssertFalse(a.isEqual(to: d))
  }

  func testHeaderRoundTripsAndRefusesForgedLimits() throws {
    let header = VaultHeader(kdf: KDFParameters(preset: .interactive))
    XCTAssertEqual(try VaultHeader.decode(try header.encoded(), path: "vault.json"), header)
    let forged = """
      {"format":"vault","version":1,"kdf":{"algorithm":"argon2id13","opslimit":1,"memlimit":8192,"salt":"00000000000000000000000000000000"}}
      """
    XCTAssertThrowsError(try VaultHeader.decode(Array(forged.utf8), path: "vault.json")) { error in
      guard case VaultError.kdfOutOfBounds = error else { return XCTFail("\(error)") }
    }
    let huge = forged.replacingOccurrences(
      of: "\"opslimit\":1,\"memlimit\":8192", with: "\"opslimit\":3,\"memlimit\":68719476736")
    XCTAssertThrowsError(try VaultHeader.decode(Array(huge.utf8), path: "vault.json")) { error in
      guard case VaultError.kdfOutOfBounds = error else { return XCTFail("\(error)") }
    }
    for bad in [
      "", "{}", "[1]", forged.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"),
      forged.replacingOccurrences(of: "argon2id13", with: "scrypt"),
    ] {
      XCTAssertThrowsError(try VaultHeader.decode(Array(bad.utf8), path: "vault.json")) { error in
        XCTAssertTrue("\(error)".contains("vault.json"), "\(error)")
      }
    }
  }
}
