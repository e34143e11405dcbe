import XCTest

@testable import VaultCore

/// The payload `vault unlock` keeps in the keyring, and its lifetime arithmetic. The keyring
/// itself is tested through the binary (vaultTests' SessionKeyTests), in keyrings of the
/// tests' own.
final class SessionKeyPayloadTests: XCTestCase {
  let keyFile = Array("VLTK".utf8) + [1] + [UInt8](repeating: 7, count: 72)

  func makeKey() -> SessionKey {
    SessionKey(
      spaceTag: "00112233445566778899aabbccddeeff", master: MasterKey.generate(),
      keyFileDigest: SessionKey.digest(ofKeyFile: keyFile),
      lifetime: SessionLifetime(idleSeconds: 900, deadline: 1_795_000_000))
  }

  func testPayloadRoundTrip() throws {
    let key = makeKey()
    let payload = key.encoded()
    XCTAssertEqual(payload.count, 97)
    let bytes = Array(UnsafeRawBufferPointer(start: payload.pointer, count: payload.count))
    XCTAssertEqual(Array(bytes[0..<5]), Array("VLTS".utf8) + [1])
    XCTAssertEqual(Array(bytes[85..<97]), [0, 0, 0x03, 0x84, 0, 0, 0, 0, 0x6a, 0xfd, 0x86, 0xc0])
    let decoded = try XCTUnwrap(SessionKey.decode(payload))
    XCTAssertEqual(decoded.spaceTag, key.spaceTag)
    XCTAssertTrue(decoded.master.key.isEqual(to: key.master.key))
    XCTAssertEqual(decoded.lifetime, key.lifetime)
    XCTAssertTrue(decoded.matches(keyFile: keyFile))
    var otherFile = keyFile
    otherFile[10] ^= 1
    XCTAssertFalse(decoded.matches(keyFile: otherFile))
  }

  func testForeignPayloadsAreRefused() {
    let payload = makeKey().encoded()
    for (offset, value) in [(0, UInt8(ascii: "X")), (4, 2), (85, 0x10), (88, 0)] {
      let damaged = SecureBytes(count: payload.count)
      damaged.pointer.copyMemory(from: payload.pointer, byteCount: payload.count)
      damaged.mutableBytes[offset] = value
      if offset == 88 { damaged.mutableBytes[87] = 0 }
      XCTAssertNil(SessionKey.decode(damaged), "byte \(offset)")
    }
    XCTAssertNil(SessionKey.decode(SecureBytes(count: 96)))
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
        spaceTag: try field(vector, "tag"),
        master: MasterKey(key: secureBytes(try hexField(vector, "master-key"))),
        keyFileDigest: SessionKey.digest(ofKeyFile: try hexField(vector, "key-file")),
        lifetime: SessionLifetime(
          idleSeconds: try XCTUnwrap(Int(try field(vector, "idle"))),
          deadline: try XCTUnwrap(Int64(try field(vector, "deadline")))))
      let payload = key.encoded()
      XCTAssertEqual(
        hexString(UnsafeBufferPointer(start: payload.bytes, count: payload.count)),
        hexString(try hexField(vector, "payload")))
      XCTAssertEqual(SessionKey.decode(payload)?.spaceTag, try field(vector, "tag"))
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
}
