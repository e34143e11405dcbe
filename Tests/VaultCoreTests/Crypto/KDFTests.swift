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

  /// A header as an attacker would forge it: any values, with a matching checksum.
  func forgedHeader(
    format: String = "vault", version: Int = 1, algorithm: String = "argon2id13", opslimit: UInt64,
    memlimit: UInt64, salt: String = String(repeating: "0", count: 32)
  ) -> [UInt8] {
    let kdf = VaultHeader.Stored.KDF(algorithm: algorithm, opslimit: opslimit, memlimit: memlimit, salt: salt)
    let checksum = VaultHeader.checksum(format: format, version: version, kdf: kdf)
    let json = """
      {"format":"\(format)","version":\(version),"kdf":{"algorithm":"\(algorithm)","opslimit":\(opslimit),\
      "memlimit":\(memlimit),"salt":"\(salt)"},"checksum":"\(checksum)"}
      """
    return Array(json.utf8)
  }

  func testHeaderRoundTripsAndRefusesForgedLimits() throws {
    let header = VaultHeader(kdf: KDFParameters(preset: .interactive))
    XCTAssertEqual(try VaultHeader.decode(try header.encoded(), path: "vault.json"), header)
    XCTAssertNoThrow(
      try VaultHeader.decode(forgedHeader(opslimit: 2, memlimit: 67_108_864), path: "vault.json"))
    for (ops, mem) in [(UInt64(1), UInt64(8192)), (3, 68_719_476_736), (1_000_000, 67_108_864)] {
      XCTAssertThrowsError(
        try VaultHeader.decode(forgedHeader(opslimit: ops, memlimit: mem), path: "vault.json")
      ) {
        guard case VaultError.kdfOutOfBounds = $0 else { return XCTFail("\($0)") }
      }
    }
    let bad = [
      [], Array("{}".utf8), Array("[1]".utf8),
      forgedHeader(version: 2, opslimit: 2, memlimit: 67_108_864),
      forgedHeader(format: "other", opslimit: 2, memlimit: 67_108_864),
      forgedHeader(algorithm: "scrypt", opslimit: 2, memlimit: 67_108_864),
      forgedHeader(opslimit: 2, memlimit: 67_108_864, salt: "00"),
      forgedHeader(opslimit: 2, memlimit: 67_108_864, salt: String(repeating: "g", count: 32)),
    ]
    for bytes in bad {
      XCTAssertThrowsError(try VaultHeader.decode(bytes, path: "vault.json")) { error in
        XCTAssertTrue("\(error)".contains("vault.json") || "\(error)".contains("salt"), "\(error)")
      }
    }
  }

  func testEveryFlippedByteOfTheHeaderIsReportedAsDamageToIt() throws {
    let encoded = try VaultHeader(kdf: KDFParameters(preset: .interactive)).encoded()
    for position in 0..<encoded.count {
      var damaged = encoded
      damaged[position] ^= 0x01
      XCTAssertThrowsError(try VaultHeader.decode(damaged, path: "vault.json"), "flip at \(position)") {
        error in
        guard case VaultError.invalidHeader(let path, _) = error else {
          return XCTFail("flip at \(position): \(error)")
        }
        XCTAssertEqual(path, "vault.json")
      }
    }
  }
}
