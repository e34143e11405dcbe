import CSodium
import XCTest

@testable import VaultCore

final class BlobTests: XCTestCase {
  var folder = ""
  let key = SecureBytes.random(count: 32)
  /// The payload length of each blob `writeBlob` wrote: the payload says where it ends,
  /// here as the tests' callers do, from what they know about it.
  var payloadLengths: [String: Int] = [:]

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  func plaintext(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ ($0 >> 8)) }
  }

  func writeBlob(_ bytes: [UInt8], kind: BlobKind = .original, key: SecureBytes? = nil) throws -> String {
    let file = try TemporaryFile(in: folder)
    let writer = try BlobWriter(kind: kind, key: key ?? self.key, output: file)
    // Written in uneven pieces, so chunking does not depend on how callers slice.
    var offset = 0
    var piece = 1
    while offset < bytes.count {
      let end = min(bytes.count, offset + piece)
      try writer.write(Array(bytes[offset..<end]))
      offset = end
      piece = piece * 3 + 7
    }
    XCTAssertEqual(writer.payloadLength, bytes.count)
    try writer.finish()
    XCTAssertEqual(writer.payloadLength, bytes.count, "the padding is not payload")
    let path = folder + "/" + BlobID.random().hex
    try file.replace(path)
    payloadLengths[path] = bytes.count
    return path
  }

  /// The payload of a blob `writeBlob` wrote, after checking its padding.
  func readBlob(_ path: String, kind: BlobKind = .original, key: SecureBytes? = nil) throws -> [UInt8] {
    let reader = try BlobReader(path: path, kind: kind, key: key ?? self.key, what: "photo 'test.jpg'")
    var payload = try reader.readExactly(payloadLengths[path]!)
    do {
      try reader.readPadding()
    } catch {
      payload.wipe()
      throw error
    }
    return payload
  }

  func assertRejected(_ path: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try readBlob(path), message, file: file, line: line) { error in
      guard case VaultError.damagedBlob(let what, _) = error else {
        return XCTFail("\(message): unexpected \(error)", file: file, line: line)
      }
      XCTAssertEqual(what, "photo 'test.jpg'", file: file, line: line)
    }
  }

  func testRoundTripAtChunkEdges() throws {
    // Payloads whose padded plaintext ends just before, at and after a chunk's end.
    for size in [0, 1, 9, 63487, 65535, 65536, 65537, 67585, 3 * 1_048_576 + 123] {
      let bytes = plaintext(size)
      let path = try writeBlob(bytes)
      XCTAssertEqual(
        try fileBytes(path).count, BlobFormat.blobLength(plaintextLength: Padme.paddedLength(size)),
        "size \(size)")
      XCTAssertEqual(
        try fileBytes(path).count, BlobFormat.paddedBlobLength(payloadLength: size), "size \(size)")
      XCTAssertEqual(try readBlob(path), bytes, "size \(size)")
      let reader = try BlobReader(path: path, kind: .original, key: key, what: "photo 'test.jpg'")
      XCTAssertEqual(reader.version, BlobFormat.paddedVersion)
      var whole = try reader.readToEnd(limit: 64 << 20)
      defer { whole.wipe() }
      XCTAssertEqual(whole.count, Padme.paddedLength(size), "size \(size)")
      XCTAssertTrue(whole[size...].allSatisfy { $0 == 0 }, "size \(size): padding of zero bytes")
    }
  }

  func testPaddingMustBeCanonical() throws {
    // 17 bytes are padded with 1 (Padmé rounds 17 up to 18); 16 bytes get none.
    for (payload, padding) in [(17, 1), (16, 0), (4_194_305, 131_071)] {
      XCTAssertEqual(Padme.paddedLength(payload), payload + padding, "\(payload)")
    }
    func sealed(_ plaintext: [UInt8]) throws -> String {
      let path = folder + "/" + BlobID.random().hex
      try writeBytes(
        sealedBlob(plaintext, kind: .original, version: BlobFormat.paddedVersion, key: key), to: path)
      return path
    }
    func reason(_ path: String, payload: Int) -> String? {
      payloadLengths[path] = payload
      do {
        _ = try readBlob(path)
        return nil
      } catch VaultError.damagedBlob(let what, let reason) {
        XCTAssertEqual(what, "photo 'test.jpg'")
        return reason
      } catch {
        return "\(error)"
      }
    }
    let body = plaintext(17)
    XCTAssertNil(reason(try sealed(body + [0]), payload: 17), "the canonical padding reads")
    XCTAssertEqual(
      reason(try sealed(body + [1]), payload: 17), "its padding is not all zero bytes")
    XCTAssertEqual(
      reason(try sealed(body), payload: 17), "holds 0 bytes of padding, a 17-byte payload gets 1")
    XCTAssertEqual(
      reason(try sealed(body + [0, 0, 0]), payload: 17),
      "holds more padding than the 1 bytes a 17-byte payload gets")
    XCTAssertEqual(
      reason(try sealed(plaintext(16) + [0, 0]), payload: 16),
      "holds more padding than the 0 bytes a 16-byte payload gets")
    // Past 4 MiB, padding spans chunks: one zero too few, and a non-zero byte in each chunk.
    let large = 4_194_305
    let padded = plaintext(large) + [UInt8](repeating: 0, count: 131_071)
    XCTAssertNil(reason(try sealed(padded), payload: large))
    XCTAssertEqual(
      reason(try sealed(Array(padded.dropLast())), payload: large),
      "holds 131070 bytes of padding, a 4194305-byte payload gets 131071")
    for position in [large, large + 70_000, padded.count - 1] {
      var flipped = padded
      flipped[position] = 0x80
      XCTAssertEqual(
        reason(try sealed(flipped), payload: large), "its padding is not all zero bytes", "at \(position)")
    }
    // Version 1 has no padding: bytes after the payload are damage, even zero bytes.
    let unpadded = folder + "/" + BlobID.random().hex
    try writeBytes(
      sealedBlob(body + [0], kind: .original, version: BlobFormat.unpaddedVersion, key: key), to: unpadded)
    XCTAssertEqual(reason(unpadded, payload: 17), "holds bytes after its 17-byte payload")
    XCTAssertNil(reason(unpadded, payload: 18))
  }

  func testAVersionCannotBeRelabelled() throws {
    // The version byte is authenticated data: a padded blob passed off as format 1 (whose
    // reader would take the padding as payload), or the other way round, does not decrypt.
    let path = try writeBlob(plaintext(17))
    var whole = try fileBytes(path)
    XCTAssertEqual(whole[4], BlobFormat.paddedVersion)
    whole[4] = BlobFormat.unpaddedVersion
    try writeBytes(whole, to: path)
    assertRejected(path, "relabelled as version 1")
    try writeBytes(sealedBlob(plaintext(17), kind: .original, version: 1, key: key), to: path)
    whole = try fileBytes(path)
    whole[4] = BlobFormat.paddedVersion
    try writeBytes(whole, to: path)
    assertRejected(path, "relabelled as version 2")
    whole[4] = 3
    try writeBytes(whole, to: path)
    XCTAssertThrowsError(try readBlob(path)) { error in
      XCTAssertEqual(
        error as? VaultError, .damagedBlob(what: "photo 'test.jpg'", reason: "unsupported blob version 3"))
    }
  }

  func testEveryTruncationOfASmallBlobIsRejected() throws {
    let path = try writeBlob(plaintext(300))
    let whole = try fileBytes(path)
    for length in 0..<whole.count {
      try writeBytes(Array(whole[0..<length]), to: path)
      assertRejected(path, "cut at \(length)")
    }
  }

  func testTruncationsOfAMultiChunkBlobAreRejected() throws {
    let path = try writeBlob(plaintext(2 * 65536 + 10))
    let whole = try fileBytes(path)
    let chunk = BlobFormat.chunkSize + BlobFormat.chunkOverhead
    let start = BlobFormat.prefixLength + BlobFormat.streamHeaderLength
    var lengths = Set<Int>()
    for boundary in [0, start, start + chunk, start + 2 * chunk, whole.count] {
      for delta in [-17, -16, -1, 0, 1, 16, 17] {
        let length = boundary + delta
        if length >= 0 && length < whole.count { lengths.insert(length) }
      }
    }
    var generator = SeededGenerator(seed: 42)
    for _ in 0..<150 { lengths.insert(Int.random(in: 0..<whole.count, using: &generator)) }
    for length in lengths.sorted() {
      try writeBytes(Array(whole[0..<length]), to: path)
      assertRejected(path, "cut at \(length)")
    }
  }

  func testEveryFlippedByteOfASmallBlobIsRejected() throws {
    let path = try writeBlob(plaintext(200))
    let whole = try fileBytes(path)
    for position in 0..<whole.count {
      var damaged = whole
      damaged[position] ^= 0x20
      try writeBytes(damaged, to: path)
      assertRejected(path, "flip at \(position)")
    }
  }

  func testAFlippedByteInEachPartOfAMultiChunkBlobIsRejected() throws {
    let path = try writeBlob(plaintext(2 * 65536 + 10))
    let whole = try fileBytes(path)
    let chunk = BlobFormat.chunkSize + BlobFormat.chunkOverhead
    let start = BlobFormat.prefixLength + BlobFormat.streamHeaderLength
    let positions = [
      0, 4, 5,  // magic, version, kind
      6, 29,  // stream header
      start, start + 1, start + 40_000, start + chunk - 1,  // first chunk: tag byte, body, MAC
      start + chunk + 3, start + 2 * chunk - 16,  // second chunk
      start + 2 * chunk, whole.count - 1,  // final chunk
    ]
    for position in positions {
      var damaged = whole
      damaged[position] ^= 0x01
      try writeBytes(damaged, to: path)
      assertRejected(path, "flip at \(position)")
    }
  }

  func testReorderedChunksAndAppendedBytesAreRejected() throws {
    let path = try writeBlob(plaintext(3 * 65536 + 5))
    let whole = try fileBytes(path)
    let chunk = BlobFormat.chunkSize + BlobFormat.chunkOverhead
    let start = BlobFormat.prefixLength + BlobFormat.streamHeaderLength
    var swapped = Array(whole[0..<start])
    swapped += whole[(start + chunk)..<(start + 2 * chunk)]
    swapped += whole[start..<(start + chunk)]
    swapped += whole[(start + 2 * chunk)...]
    try writeBytes(swapped, to: path)
    assertRejected(path, "chunks 0 and 1 swapped")
    for extra in [[UInt8(0)], [UInt8](repeating: 0xAB, count: 17), [UInt8](repeating: 1, count: chunk)] {
      try writeBytes(whole + extra, to: path)
      assertRejected(path, "\(extra.count) bytes appended")
    }
  }

  func testBlobOfAnotherIDOrKindIsRejected() throws {
    let master = MasterKey.generate()
    let a = BlobID.random()
    let b = BlobID.random()
    let path = try writeBlob(plaintext(1000), key: master.blobKey(kind: .original, id: a))
    XCTAssertNoThrow(try readBlob(path, key: master.blobKey(kind: .original, id: a)))
    XCTAssertThrowsError(try readBlob(path, key: master.blobKey(kind: .original, id: b)))
    XCTAssertThrowsError(try readBlob(path, kind: .thumbnail, key: master.blobKey(kind: .thumbnail, id: a)))
    XCTAssertThrowsError(try readBlob(path, key: MasterKey.generate().blobKey(kind: .original, id: a)))
  }

  func testAMissingFinalChunkIsRejected() throws {
    // 64 KiB of plaintext: one full chunk, then an empty final chunk. Drop the final one.
    let path = try writeBlob(plaintext(65536))
    let whole = try fileBytes(path)
    try writeBytes(Array(whole.dropLast(BlobFormat.chunkOverhead)), to: path)
    XCTAssertThrowsError(try readBlob(path)) { error in
      XCTAssertTrue("\(error)".contains("final chunk is missing"), "\(error)")
    }
    // A stream whose last (short) chunk carries the ordinary message tag, not the final one.
    var state = crypto_secretstream_xchacha20poly1305_state()
    var header = [UInt8](repeating: 0, count: BlobFormat.streamHeaderLength)
    crypto_secretstream_xchacha20poly1305_init_push(&state, &header, key.bytes)
    let prefix = BlobFormat.prefix(kind: .original, version: BlobFormat.paddedVersion)
    let message = plaintext(100)
    var sealed = [UInt8](repeating: 0, count: message.count + BlobFormat.chunkOverhead)
    crypto_secretstream_xchacha20poly1305_push(
      &state, &sealed, nil, message, UInt64(message.count), prefix, UInt64(prefix.count),
      UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE))
    try writeBytes(prefix + header + sealed, to: path)
    XCTAssertThrowsError(try readBlob(path)) { error in
      XCTAssertTrue("\(error)".contains("final chunk is missing"), "\(error)")
    }
  }

  func testStreamAndHashStatesLiveInSecureMemory() throws {
    let stream = SecretStreamState()
    XCTAssertEqual(UnsafeMutableRawPointer(stream.pointer), stream.storage.pointer)
    XCTAssertGreaterThanOrEqual(stream.storage.count, crypto_secretstream_xchacha20poly1305_statebytes())
    let hasher = ContentHasher(key: key)
    XCTAssertGreaterThanOrEqual(hasher.storage.count, crypto_generichash_statebytes())
    XCTAssertEqual(Int(bitPattern: hasher.storage.pointer) % 64, 0, "the hash state must be 64-byte aligned")
    // Hashing from secure memory gives the same hash as the one-shot function.
    let bytes = plaintext(200_000)
    bytes.withUnsafeBytes { hasher.update($0) }
    var expected = [UInt8](repeating: 0, count: 32)
    crypto_generichash(&expected, 32, bytes, UInt64(bytes.count), key.bytes, key.count)
    XCTAssertEqual(hasher.finish(), hexString(expected))
  }

  func testReadToEndKeepsItsLimitAndGrowsAcrossManyChunks() throws {
    let bytes = plaintext(5 * BlobFormat.chunkSize + 123)
    let path = try writeBlob(bytes)
    XCTAssertEqual(try readBlob(path), bytes)
    let whole = try BlobReader(path: path, kind: .original, key: key, what: "photo 'test.jpg'")
    XCTAssertEqual(
      try whole.readToEnd(limit: Padme.paddedLength(bytes.count)).count, Padme.paddedLength(bytes.count))
    let reader = try BlobReader(path: path, kind: .original, key: key, what: "photo 'test.jpg'")
    XCTAssertThrowsError(try reader.readToEnd(limit: Padme.paddedLength(bytes.count) - 1)) { error in
      XCTAssertEqual(
        error as? VaultError, .damagedBlob(what: "photo 'test.jpg'", reason: "is unexpectedly large"))
    }
  }

  func testDecoderInputInMemoryIsWiped() {
    let pinned = PinnedBytes([1, 2, 3, 4, 5])
    XCTAssertEqual(Array(pinned.buffer), [1, 2, 3, 4, 5])
    pinned.wipe()
    XCTAssertEqual(Array(pinned.buffer), [0, 0, 0, 0, 0])
  }
}
