import XCTest

@testable import VaultCore

/// The payload `vault unlock` keeps in the keyring, and its lifetime arithmetic. The keyring
/// itself is tested through the binary (vaultTests' SessionKeyTests), in keyrings of the
/// tests' own.
final class SessionKeyPayloadTests: XCTestCase {
  let wrappingKey = SecureBytes.random(count: 32)

  func makeKey(deadline: Int64 = 1_795_000_000) -> SessionKey {
    SessionKey(
      spaceTag: "00112233445566778899aabbccddeeff", wrappingKey: wrappingKey,
      lifetime: SessionLifetime(idleSeconds: 900, deadline: deadline))
  }

  func testPayloadRoundTrip() throws {
    let key = makeKey()
    let payload = key.encoded()
    XCTAssertEqual(payload.count, 65)
    let bytes = Array(UnsafeRawBufferPointer(start: payload.pointer, count: payload.count))
    XCTAssertEqual(Array(bytes[0..<5]), Array("VLTS".utf8) + [2])
    XCTAssertEqual(Array(bytes[53..<65]), [0, 0, 0x03, 0x84, 0, 0, 0, 0, 0x6a, 0xfd, 0x86, 0xc0])
    let decoded = try XCTUnwrap(SessionKey.decode(payload, now: 1_794_999_000))
    XCTAssertEqual(decoded.spaceTag, key.spaceTag)
    XCTAssertTrue(decoded.wrappingKey.isEqual(to: wrappingKey))
    XCTAssertEqual(decoded.lifetime, key.lifetime)
  }

  /// The key file authenticates a session key: only the wrapping key it was sealed with
  /// unwraps the master key, so a key forged with the space's tag opens nothing.
  func testOnlyTheSpacesWrappingKeyUnwrapsItsKeyFile() throws {
    let master = MasterKey.generate()
    let keyFile = KeyWrap.wrap(master, with: wrappingKey)
    let unwrapped = try XCTUnwrap(makeKey().unwrapMaster(keyFile: keyFile))
    XCTAssertTrue(unwrapped.key.isEqual(to: master.key))
    let forged = SessionKey(
      spaceTag: makeKey().spaceTag, wrappingKey: SecureBytes.random(count: 32),
      lifetime: makeKey().lifetime)
    XCTAssertNil(forged.unwrapMaster(keyFile: keyFile))
    var damaged = keyFile
    damaged[40] ^= 1
    XCTAssertNil(makeKey().unwrapMaster(keyFile: damaged))
  }

  func testForeignPayloadsAreRefused() {
    let payload = makeKey().encoded()
    // Another magic, version 1 (which kept the master key), an idle time past 7 days or of
    // 0, a deadline years ahead.
    for (offset, value) in [(0, UInt8(ascii: "X")), (4, 1), (53, 0x10), (56, 0), (60, 0x7f)] {
      let damaged = SecureBytes(count: payload.count)
      damaged.pointer.copyMemory(from: payload.pointer, byteCount: payload.count)
      damaged.mutableBytes[offset] = value
      if offset == 56 { damaged.mutableBytes[55] = 0 }
      XCTAssertNil(SessionKey.decode(damaged, now: 1_794_999_000), "byte \(offset)")
    }
    XCTAssertNil(SessionKey.decode(SecureBytes(count: 64)))
    XCTAssertNil(SessionKey.decode(SecureBytes(count: 97)), "version 1's length")
  }

  func testNameVectors() throws {
    let vectors = try formatVectors(named: "session key name")
    XCTAssertFalse(vectors.isEmpty)
    for vector in vectors {
      XCTAssertEqual(
        SessionKeyring.spaceKeyName(
          secret: secureBytes(try hexField(vector, "secret")), resolvedPath: try field(vector, "path"),
          salt: try hexField(vector, "salt")),
        try field(vector, "key-name"))
    }
  }

  func testPayloadVectors() throws {
    let vectors = try formatVectors(named: "session key")
    XCTAssertFalse(vectors.isEmpty)
    for vector in vectors {
      let key = SessionKey(
        spaceTag: try field(vector, "tag"), wrappingKey: secureBytes(try hexField(vector, "wrapping-key")),
        lifetime: SessionLifetime(
          idleSeconds: try XCTUnwrap(Int(try field(vector, "idle"))),
          deadline: try XCTUnwrap(Int64(try field(vector, "deadline")))))
      let payload = key.encoded()
      XCTAssertEqual(
        hexString(UnsafeBufferPointer(start: payload.bytes, count: payload.count)),
        hexString(try hexField(vector, "payload")))
      let unlocked = try XCTUnwrap(Int64(try field(vector, "deadline"))) - 3600
      XCTAssertEqual(SessionKey.decode(payload, now: unlocked)?.spaceTag, try field(vector, "tag"))
    }
  }

  func testTimeoutIsTheIdleTimeCutAtTheDeadline() {
    let lifetime = SessionLifetime(idleSeconds: 900, maximumSeconds: 3600, now: 1000)
    XCTAssertEqual(lifetime.deadline, 4600)
    XCTAssertEqual(lifetime.timeout(at: 1000), 900)
    XCTAssertEqual(lifetime.timeout(at: 4000), 600)
    XCTAssertEqual(lifetime.timeout(at: 4599), 1)
    XCTAssertEqual(lifetime.timeout(at: 4600), 0)
    XCTAssertEqual(lifetime.timeout(at: 9000), 0)
  }

  /// The payload is not authenticated: whatever deadline it holds, and whatever the clock
  /// says, the arithmetic must not trap (it did for Int64.min, in every command).
  func testExtremeDeadlinesNeitherTrapNorDecode() throws {
    for deadline in [Int64.min, Int64.min + 1, -1, 0, Int64.max] {
      let lifetime = SessionLifetime(idleSeconds: 900, deadline: deadline)
      for now in [Int64.min, -1, 0, 1_795_000_000, Int64.max] {
        let timeout = lifetime.timeout(at: now)
        XCTAssertTrue((0...900).contains(timeout), "deadline \(deadline), now \(now): \(timeout)")
      }
      let payload = SessionKey(
        spaceTag: "00112233445566778899aabbccddeeff", wrappingKey: wrappingKey, lifetime: lifetime
      ).encoded()
      XCTAssertNil(SessionKey.decode(payload, now: 1_795_000_000), "deadline \(deadline)")
    }
    // An unlock's own deadline, at most 7 days ahead, still decodes; a week and a day does not.
    let now: Int64 = 1_795_000_000
    for (ahead, decodes) in [(Int64(1), true), (7 * 86400, true), (8 * 86400, false)] {
      let payload = makeKey(deadline: now + ahead).encoded()
      XCTAssertEqual(SessionKey.decode(payload, now: now) != nil, decodes, "\(ahead) s ahead")
    }
  }
}
