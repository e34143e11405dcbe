import CSodium
import XCTest

@testable import VaultCore

final class BlobTests: XCTestCase {
  var folder = ""
  let key = SecureBytes.random(count: 32)

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
    try writer.finish()
    let path = folder + "/" + BlobID.random().hex
    try file.replace(path)
    return path
  }

  func readBlob(_ path: String, kind: BlobKind = .original, key: SecureBytes? = nil) throws -> [UInt8] {
    let reader = try BlobReader(path: path, kind: kind, key: key ?? self.key, what: "photo 'test.jpg'")
    return try reader.readToEnd(limit: 64 << 20)
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
    for size in [0, 1, 65535, 65536, 65537, 3 * 1_048_576 + 123] {
      let bytes = plaintext(size)
      let path = try writeBlob(bytes)
      XCTAssertEqual(try fileBytes(path).count, BlobFormat.blobLength(plaintextLength: size), "size \(size)")
      XCTAssertEqual(try readBlob(path), bytes, "size \(size)")
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
    let prefix = BlobFormat.prefix(kind: .original)
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
    let reader = try BlobReader(path: path, kind: .original, key: key, what: "photo 'test.jpg'")
    XCTAssertThrowsError(try reader.readToEnd(limit: bytes.count - 1)) { error in
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
