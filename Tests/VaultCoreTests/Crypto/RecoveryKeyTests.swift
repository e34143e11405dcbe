import Foundation
import XCTest

@testable import VaultCore

/// Recovery keys (docs/FORMAT.md, "Recovery key"): how they are written and read back, the
/// known answers, and recovering a space in VaultCore.
final class RecoveryKeyTests: XCTestCase {
  private func typed(_ text: String) throws -> RecoveryKey {
    try RecoveryKey(typed: Array(text.utf8))
  }

  private func text(_ key: RecoveryKey) -> String {
    String(decoding: key.displayBytes(), as: UTF8.self)
  }

  private func secretHex(_ key: RecoveryKey) -> String {
    hexString(UnsafeBufferPointer(start: key.secret.bytes, count: key.secret.count))
  }

  func testTheRecoveryKeyVectors() throws {
    let vectors = try formatVectors(named: "recovery key")
    XCTAssertEqual(vectors.count, 1)
    for vector in vectors {
      let key = RecoveryKey(secret: secureBytes(try hexField(vector, "secret")))
      XCTAssertEqual(RecoveryKey.check(of: key.secret), try hexField(vector, "check"))
      XCTAssertEqual(text(key), try field(vector, "text"))
      let wrapping = key.wrappingKey()
      XCTAssertEqual(
        hexString(UnsafeBufferPointer(start: wrapping.bytes, count: wrapping.count)),
        hexString(try hexField(vector, "wrapping-key")))
    }
  }

  func testTheTypedRecoveryKeyVectors() throws {
    let vectors = try formatVectors(named: "recovery key typed")
    XCTAssertEqual(vectors.count, 2)
    for vector in vectors {
      let typedText = try field(vector, "typed")
      switch try field(vector, "expect") {
      case "success":
        XCTAssertEqual(secretHex(try typed(typedText)), hexString(try hexField(vector, "secret")))
      case "typo":
        XCTAssertThrowsError(try typed(typedText)) {
          guard case .invalidRecoveryKey(let reason, _)? = $0 as? VaultError else { return XCTFail("\($0)") }
          XCTAssertTrue(reason.hasPrefix("has a typo"), reason)
        }
      default:
        XCTFail("unknown expectation in \(vector)")
      }
    }
  }

  func testTheRecoveryFileVector() throws {
    let vectors = try formatVectors(named: "recovery file")
    XCTAssertEqual(vectors.count, 1)
    for vector in vectors {
      let wrapping = secureBytes(try hexField(vector, "wrapping-key"))
      let master = MasterKey(key: secureBytes(try hexField(vector, "master-key")))
      let file = KeyWrap.wrap(
        master, with: wrapping, magic: KeyWrap.recoveryMagic, nonce: try hexField(vector, "nonce"))
      XCTAssertEqual(hexString(file), hexString(try hexField(vector, "file")))
      let unwrapped = try XCTUnwrap(KeyWrap.unwrap(file, with: wrapping, magic: KeyWrap.recoveryMagic))
      XCTAssertTrue(unwrapped.key.isEqual(to: master.key))
      XCTAssertNil(KeyWrap.unwrap(file, with: wrapping), "a recovery file never opens as a key file")
    }
  }

  func testAKeyReadsBackAsPrintedInAnyCaseWithOrWithoutSeparators() throws {
    let key = RecoveryKey.generate()
    let printed = text(key)
    XCTAssertEqual(printed.count, 39)
    XCTAssertEqual(printed.split(separator: "-").map(\.count), Array(repeating: 4, count: 8))
    let compact = printed.replacingOccurrences(of: "-", with: "")
    for variant in [
      printed, printed.lowercased(), compact, compact.lowercased(),
      printed.replacingOccurrences(of: "-", with: " "), "  " + printed + "\t",
    ] {
      XCTAssertEqual(secretHex(try typed(variant)), secretHex(key), variant)
    }
  }

  /// Every single-character typo of a key (each place, each other character) is caught by
  /// its check, with the reason a typo gives.
  func testEverySingleCharacterTypoIsCaught() throws {
    let key = RecoveryKey(secret: secureBytes(Array(0..<16)))
    let symbols = Array(text(key).utf8).filter { $0 != 0x2D }
    for place in symbols.indices {
      for replacement in RecoveryKey.alphabet where replacement != symbols[place] {
        var wrong = symbols
        wrong[place] = replacement
        XCTAssertThrowsError(try RecoveryKey(typed: wrong)) {
          guard case .invalidRecoveryKey(let reason, _)? = $0 as? VaultError else { return XCTFail("\($0)") }
          XCTAssertTrue(reason.hasPrefix("has a typo"), reason)
        }
      }
    }
  }

  func testMalformedKeysAreRefusedWithTheirReason() throws {
    let printed = text(RecoveryKey.generate())
    let cases: [(String, String)] = [
      (String(printed.dropLast()), "has 31 letters and digits; a recovery key has 32"),
      (printed + "7", "has 33 letters and digits; a recovery key has 32"),
      ("U" + printed.dropFirst(), "has 'U', which no recovery key has"),
      ("", "has 0 letters and digits"),
    ]
    for (text, reason) in cases {
      XCTAssertThrowsError(try typed(text), text) {
        guard case .invalidRecoveryKey(let found, _)? = $0 as? VaultError else { return XCTFail("\($0)") }
        XCTAssertTrue(found.hasPrefix(reason), found)
      }
    }
  }

  func testRecoverMovesTheSpaceToANewPasswordAndANewKeyReplacesTheOld() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder)
    let key = try vault.createSpace(password: password("forgotten"))
    let decoyKey = try vault.createSpace(password: password("decoy"))
    do {
      // Closed (its lock let go) at the end of this block.
      let space = try vault.unlock(password: password("forgotten"), access: .write)
      try PhotoImporter().importFiles([fixturesPath + "/photo.jpg"], into: space) { _, _ in }
    }
    try vault.recover(with: key) { try password("remembered") }
    XCTAssertEqual(
      try vault.unlock(password: password("remembered"), access: .read).entries.map(\.record.name),
      ["photo.jpg"])
    XCTAssertThrowsError(try vault.unlock(password: password("forgotten"), access: .read))
    XCTAssertThrowsError(try vault.recover(with: key) { try password("decoy") }) {
      XCTAssertEqual($0 as? VaultError, .newPasswordOpensAnotherSpace)
    }
    let newKey = try vault.makeRecoveryKey(password: password("remembered"))
    XCTAssertThrowsError(try vault.recover(with: key) { try password("again") }) {
      XCTAssertEqual($0 as? VaultError, .noSpaceForRecoveryKey)
    }
    try vault.recover(with: newKey) { try password("again") }
    XCTAssertEqual(try vault.unlock(password: password("again"), access: .read).entries.count, 1)
    XCTAssertEqual(try vault.unlock(password: password("decoy"), access: .read).entries.count, 0)
    try vault.recover(with: decoyKey) { try password("decoy two") }
    XCTAssertEqual(try vault.unlock(password: password("decoy two"), access: .read).entries.count, 0)
  }

  /// A `recovery` file copied into another space's folder unwraps there, but the key it
  /// holds does not open that space: it is refused, and nothing changes.
  func testARecoveryFileCopiedIntoAnotherSpaceIsRefused() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    let secondKey = try vault.createSpace(password: password("second"))
    let first = vault.path + "/" + (try vault.passwordKeys(for: password("first"))).spaceTag
    try FileManager.default.removeItem(atPath: first + "/recovery")
    try FileManager.default.copyItem(
      atPath: vault.path + "/" + (try vault.passwordKeys(for: password("second"))).spaceTag + "/recovery",
      toPath: first + "/recovery")
    let before = try snapshotOfFolder(vault.path)
    XCTAssertThrowsError(try Space(directory: first, recoveryWrappingKey: secondKey.wrappingKey())) {
      guard case .damagedIndex? = $0 as? VaultError else { return XCTFail("\($0)") }
    }
    XCTAssertEqual(try snapshotOfFolder(vault.path), before)
    XCTAssertEqual(try vault.unlock(password: password("first"), access: .read).entries.count, 0)
  }

  /// Every file below `folder` with its bytes.
  private func snapshotOfFolder(_ folder: String) throws -> [String: Data] {
    var result: [String: Data] = [:]
    for case let relative as String in FileManager.default.enumerator(atPath: folder)?.allObjects ?? [] {
      result[relative] = FileManager.default.contents(atPath: folder + "/" + relative) ?? Data()
    }
    return result
  }
}
