import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Seals `plaintext` as a version-3 blob chunk by chunk, as given: a test can make blobs
/// that `SeekableBlobWriter` never writes (wrong padding, a bad trailer length).
func sealedSeekableBlob(
  _ plaintext: [UInt8], kind: BlobKind, key: SecureBytes,
  noncePrefix: [UInt8] = [UInt8](repeating: 9, count: 16)
) -> [UInt8] {
  let prefix = BlobFormat.prefix(kind: kind, version: SeekableBlobFormat.version)
  let cipher = ChunkCipher(key: key, noncePrefix: noncePrefix, additionalData: prefix)
  var blob = prefix + noncePrefix
  let chunks = SeekableBlobFormat.chunkCount(plaintextLength: plaintext.count)
  for index in 0..<chunks {
    let start = index * SeekableBlobFormat.chunkSize
    let count = min(SeekableBlobFormat.chunkSize, plaintext.count - start)
    var sealed = [UInt8](repeating: 0, count: count + SeekableBlobFormat.tagLength)
    plaintext.withUnsafeBufferPointer { all in
      cipher.seal(
        all.baseAddress! + start, count: count, index: index, last: index == chunks - 1, into: &sealed)
    }
    blob += sealed
  }
  return blob
}

/// Version-3 blobs: every range reads back, and every change to the chunks is caught.
final class SeekableBlobTests: XCTestCase {
  var folder = ""
  let key = SecureBytes.random(count: 32)
  let what = "photo 'clip.mp4' (Photo/00)"
  let trailer = Array("{\"a record\":true}".utf8)

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  func payload(_ count: Int, seed: Int = 1) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ seed &+ ($0 >> 16)) }
  }

  /// Writes `bytes` then `trailer` as a version-3 blob, in uneven pieces (chunking does not
  /// depend on how callers slice).
  func writeBlob(_ bytes: [UInt8], trailer: [UInt8]? = nil, kind: BlobKind = .original) throws -> String {
    let file = try TemporaryFile(in: folder)
    let writer = try SeekableBlobWriter(kind: kind, key: key, output: file)
    var offset = 0
    var piece = 1
    while offset < bytes.count {
      let end = min(bytes.count, offset + piece)
      try writer.write(Array(bytes[offset..<end]))
      offset = end
      piece = piece * 5 + 3
    }
    XCTAssertEqual(writer.payloadLength, bytes.count)
    try writer.finish(trailer: trailer ?? self.trailer)
    let path = folder + "/" + BlobID.random().hex
    try file.replace(path)
    return path
  }

  /// Whether `open` reads blobs through a source that holds their chunks in memory
  /// (`ReadAheadBlobFile`), so that they decrypt in place.
  var readsInWindows = false

  func open(_ path: String, kind: BlobKind = .original) throws -> SeekableBlobReader {
    guard readsInWindows else {
      return try SeekableBlobReader(path: path, kind: kind, key: key, what: what, trailerLimit: 1 << 20)
    }
    // Windows of 80 KiB: a sealed chunk lies in one, or across two (then it is copied).
    let source = ReadAheadBlobFile(
      try LocalBlobFile(path: path), path: path,
      buffers: WindowBuffers(size: 20 * WindowBuffers.alignment, limit: 6))
    // Not XCTUnwrap: it would record the damage that some tests expect opening to throw.
    guard
      let reader = try SeekableBlobReader.openIfSeekable(
        source: source, kind: kind, key: key, what: what, trailerLimit: 1 << 20)
    else { throw VaultError.damagedBlob(what: what, reason: "not a seekable blob") }
    return reader
  }

  func read(_ reader: SeekableBlobReader, _ range: Range<Int>) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: range.count)
    try bytes.withUnsafeMutableBytes { try reader.read(at: range.lowerBound, into: $0) }
    return bytes
  }

  /// Sizes around the chunk's edges, for the payload and for payload and trailer together.
  let sizes = [0, 1, 65535, 65536, 65537, 65536 - 21, 65536 - 22, 2 * 65536 - 1, 3 * 65536 + 7, 300_001]

  func testRandomRangesReadBackAroundChunkEdges() throws {
    var random = SeededGenerator(seed: 22)
    for size in sizes {
      let bytes = payload(size, seed: size)
      let path = try writeBlob(bytes)
      let plaintextLength = Padme.paddedLength(size + trailer.count + 4)
      XCTAssertEqual(
        try fileBytes(path).count, SeekableBlobFormat.blobLength(plaintextLength: plaintextLength),
        "size \(size)")
      let reader = try open(path)
      XCTAssertEqual(reader.trailer, trailer, "size \(size)")
      XCTAssertEqual(reader.plaintextLength, plaintextLength)
      try reader.checkPadding(payloadLength: size)
      XCTAssertEqual(try read(reader, 0..<size), bytes, "size \(size): whole")
      var edges = [0, size]
      for chunkEdge in stride(from: 65536, through: size, by: 65536) {
        edges += [chunkEdge - 1, chunkEdge, chunkEdge + 1]
      }
      edges = edges.filter { $0 >= 0 && $0 <= size }
      var ranges = [Range<Int>]()
      for start in edges { for end in edges where end >= start { ranges.append(start..<end) } }
      for _ in 0..<40 where size > 0 {
        let start = Int.random(in: 0..<size, using: &random)
        ranges.append(start..<Int.random(in: start...size, using: &random))
      }
      for range in ranges {
        XCTAssertEqual(try read(reader, range), Array(bytes[range]), "size \(size), range \(range)")
      }
    }
  }

  func testChunksASourceHoldsInMemoryDecryptInPlaceAlike() throws {
    readsInWindows = true
    try testRandomRangesReadBackAroundChunkEdges()
    try testMovedDroppedRepeatedCutOrAddedChunksAreCaught()
  }

  func testOnlyTheChunksOfARangeAreRead() throws {
    let bytes = payload(5 * 65536)
    let path = try writeBlob(bytes)
    var damaged = try fileBytes(path)
    damaged[SeekableBlobFormat.headerLength + 3 * SeekableBlobFormat.sealedChunkSize + 10] ^= 1
    try writeBytes(damaged, to: path)
    let reader = try open(path)
    XCTAssertEqual(
      try read(reader, 65530..<3 * 65536), Array(bytes[65530..<3 * 65536]), "chunks 0 to 2 are intact")
    assertDamaged(
      try read(reader, 3 * 65536 - 1..<3 * 65536 + 1),
      "chunk 3 does not authenticate (changed, truncated or swapped)")
  }

  /// The pieces `forEachPieceReadingAhead` hands out for `range`, joined.
  func readAhead(_ reader: SeekableBlobReader, _ range: Range<Int>, stoppingAfter limit: Int = .max) throws
    -> [UInt8]
  {
    var bytes: [UInt8] = []
    var pieces = 0
    try reader.forEachPieceReadingAhead(of: range) { piece in
      bytes += piece
      pieces += 1
      if pieces == limit { throw VaultError.io(path: "out", reason: "disk full") }
    }
    return bytes
  }

  /// Read ahead on another thread, a range comes whole and in order; a chunk that does not
  /// authenticate comes as its error after the intact ones before it; a caller that stops
  /// early stops the decrypting thread (and nothing is left running or locked).
  func testAheadReadPiecesComeInOrderAndADamagedChunkAsItsError() throws {
    let bytes = payload(9 * 65536 + 123)
    let path = try writeBlob(bytes)
    let reader = try open(path)
    for range in [0..<bytes.count, 65535..<3 * 65536 + 1, 7..<8, 0..<0, 4 * 65536..<9 * 65536 + 1] {
      XCTAssertEqual(try readAhead(reader, range), Array(bytes[range]), "range \(range)")
    }
    XCTAssertThrowsError(try readAhead(reader, 0..<bytes.count, stoppingAfter: 2)) { error in
      XCTAssertEqual(error as? VaultError, .io(path: "out", reason: "disk full"))
    }
    var damaged = try fileBytes(path)
    damaged[SeekableBlobFormat.headerLength + 6 * SeekableBlobFormat.sealedChunkSize + 10] ^= 1
    try writeBytes(damaged, to: path)
    var before: [UInt8] = []
    assertDamaged(
      try open(path).forEachPieceReadingAhead(of: 0..<bytes.count) { before += $0 },
      "chunk 6 does not authenticate (changed, truncated or swapped)")
    XCTAssertEqual(before, Array(bytes[0..<6 * 65536]), "the intact chunks before it")
  }

  /// What the caller and the follower of `forEachPieceReadingAhead` got for `range`, each
  /// joined; the caller stops (throws) after `limit` pieces.
  func readAheadFollowed(_ reader: SeekableBlobReader, _ range: Range<Int>, stoppingAfter limit: Int = .max)
    -> (caller: [UInt8], follower: [UInt8], error: Error?)
  {
    var caller: [UInt8] = []
    var follower: [UInt8] = []
    var pieces = 0
    do {
      let follow: (UnsafeRawBufferPointer) -> Void = { follower += $0 }
      try reader.forEachPieceReadingAhead(of: range, alongside: follow) { piece in
        caller += piece
        pieces += 1
        if pieces == limit { throw VaultError.io(path: "out", reason: "disk full") }
      }
      return (caller, follower, nil)
    } catch {
      return (caller, follower, error)
    }
  }

  /// The follower (the content hash of an export) gets every piece the caller gets, in
  /// order, on a thread of its own, all of them before the read returns; a damaged chunk
  /// reaches neither (the follower stops at the intact ones before it); a caller that stops
  /// early stops the follower too, and nothing is left running. Random ranges, seed 35.
  func testAheadReadFollowerGetsThePiecesInOrderAndNoDamagedOne() throws {
    var random = SeededGenerator(seed: 35)
    let bytes = payload(40 * 65536 + 77, seed: 35)
    let path = try writeBlob(bytes)
    let reader = try open(path)
    for _ in 0..<30 {
      let start = Int.random(in: 0..<bytes.count, using: &random)
      let range = start..<Int.random(in: start...bytes.count, using: &random)
      let read = readAheadFollowed(reader, range)
      XCTAssertNil(read.error, "seed 35, range \(range)")
      XCTAssertEqual(read.caller, Array(bytes[range]), "seed 35, range \(range): the caller")
      XCTAssertEqual(read.follower, Array(bytes[range]), "seed 35, range \(range): the follower")
      let limit = Int.random(in: 1...41, using: &random)
      let stopped = readAheadFollowed(reader, range, stoppingAfter: limit)
      let pieces = range.isEmpty ? 0 : (range.upperBound - 1) / 65536 - range.lowerBound / 65536 + 1
      XCTAssertEqual(
        stopped.error != nil, limit <= pieces, "seed 35, range \(range), stopping after \(limit)")
      XCTAssertEqual(stopped.follower, Array(bytes[range].prefix(stopped.follower.count)), "seed 35")
    }
    var damaged = try fileBytes(path)
    damaged[SeekableBlobFormat.headerLength + 30 * SeekableBlobFormat.sealedChunkSize + 10] ^= 1
    try writeBytes(damaged, to: path)
    let read = readAheadFollowed(try open(path), 0..<bytes.count)
    XCTAssertEqual(
      read.error as? VaultError,
      .damagedBlob(what: what, reason: "chunk 30 does not authenticate (changed, truncated or swapped)"))
    XCTAssertEqual(read.caller, Array(bytes[0..<30 * 65536]))
    XCTAssertEqual(read.follower, Array(bytes[0..<read.follower.count]))
    XCTAssertLessThanOrEqual(read.follower.count, 30 * 65536, "never a byte of the damaged chunk")
  }

  func assertDamaged(
    _ expression: @autoclosure () throws -> Any, _ reason: String, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertThrowsError(try expression(), reason, file: file, line: line) { error in
      XCTAssertEqual(error as? VaultError, .damagedBlob(what: what, reason: reason), file: file, line: line)
    }
  }

  /// A blob of 4 chunks, its chunks cut out of the file.
  func fourChunks() throws -> (path: String, header: [UInt8], chunks: [[UInt8]]) {
    let path = try writeBlob(payload(3 * 65536 + 1000))
    let file = try fileBytes(path)
    let header = Array(file[0..<SeekableBlobFormat.headerLength])
    let chunks = stride(
      from: SeekableBlobFormat.headerLength, to: file.count, by: SeekableBlobFormat.sealedChunkSize
    ).map {
      Array(file[$0..<min(file.count, $0 + SeekableBlobFormat.sealedChunkSize)])
    }
    XCTAssertEqual(chunks.count, 4)
    return (path, header, chunks)
  }

  /// Opens `bytes` as a blob and reads all of it.
  func readAll(_ bytes: [UInt8]) throws {
    let path = folder + "/damaged"
    try writeBytes(bytes, to: path)
    let reader = try open(path)
    _ = try read(reader, 0..<reader.trailerOffset)
    try reader.checkPadding(payloadLength: 3 * 65536 + 1000)
  }

  func testMovedDroppedRepeatedCutOrAddedChunksAreCaught() throws {
    let (_, header, chunks) = try fourChunks()
    let endFailure = { (index: Int) in
      "its last chunk (\(index)) does not authenticate as the end of the blob (changed, truncated or extended)"
    }
    let middle = { (index: Int) in "chunk \(index) does not authenticate (changed, truncated or swapped)" }
    assertDamaged(try readAll(header + [chunks[0], chunks[2], chunks[1], chunks[3]].joined()), middle(1))
    assertDamaged(try readAll(header + [chunks[1], chunks[0], chunks[2], chunks[3]].joined()), middle(0))
    assertDamaged(try readAll(header + [chunks[0], chunks[1], chunks[3]].joined()), endFailure(2))
    assertDamaged(
      try readAll(header + [chunks[0], chunks[1], chunks[1], chunks[2], chunks[3]].joined()), endFailure(4))
    assertDamaged(try readAll(header + chunks[0..<3].joined()), endFailure(2))
    // The short last chunk twice: read as one longer last chunk.
    assertDamaged(try readAll(header + chunks.joined() + chunks[3]), endFailure(3))
    assertDamaged(try readAll(header + chunks.joined() + chunks[1]), endFailure(4))
    assertDamaged(
      try readAll(header + chunks[0..<3].joined() + chunks[3].prefix(10)),
      "truncated: its last chunk is cut short")
    assertDamaged(try readAll(header + chunks[0..<3].joined() + chunks[3].dropLast()), endFailure(3))
    assertDamaged(try readAll(header + chunks.joined() + [0]), endFailure(3))
    assertDamaged(try readAll(Array(header.prefix(21))), "truncated header")
    assertDamaged(try readAll(header), "truncated: its last chunk is cut short")
    for (index, chunk) in chunks.enumerated() {
      for position in [0, chunk.count / 2, chunk.count - 1] {
        var flipped = chunks
        flipped[index][position] ^= 0x10
        assertDamaged(try readAll(header + flipped.joined()), index == 3 ? endFailure(3) : middle(index))
      }
    }
    var otherPrefix = header
    otherPrefix[10] ^= 1
    assertDamaged(try readAll(otherPrefix + chunks.joined()), middle(0))
    var thumbnailKind = header
    thumbnailKind[5] = BlobKind.thumbnail.rawValue
    assertDamaged(try readAll(thumbnailKind + chunks.joined()), "holds a blob of another kind")
  }

  func testAnotherBlobsChunkIsCaught() throws {
    let (_, header, chunks) = try fourChunks()
    let (_, _, others) = try fourChunks()
    assertDamaged(
      try readAll(header + [chunks[0], others[1], chunks[2], chunks[3]].joined()),
      "chunk 1 does not authenticate (changed, truncated or swapped)")
  }

  func testPaddingAndTrailerLengthMustBeCanonical() throws {
    let body = payload(70_000)
    let length = LengthPrefixedPayload.lengthBytes(trailer.count)
    let padded = Padme.paddedLength(body.count + trailer.count + 4)
    let zeros = [UInt8](repeating: 0, count: padded - body.count - trailer.count - 4)
    func check(_ plaintext: [UInt8], payloadLength: Int = 70_000, _ reason: String) throws {
      let path = folder + "/sealed"
      try writeBytes(sealedSeekableBlob(plaintext, kind: .original, key: key), to: path)
      assertDamaged(try open(path).checkPadding(payloadLength: payloadLength), reason)
    }
    let good = body + zeros + trailer + length
    let path = folder + "/good"
    try writeBytes(sealedSeekableBlob(good, kind: .original, key: key), to: path)
    XCTAssertNoThrow(try open(path).checkPadding(payloadLength: body.count))
    var nonZero = zeros
    nonZero[nonZero.count / 2] = 1
    try check(body + nonZero + trailer + length, "its padding is not all zero bytes")
    try check(
      body + zeros + [0] + trailer + length,
      "holds \(padded + 1) bytes, a 70000-byte payload and \(trailer.count)-byte trailer get \(padded)")
    try check(
      body + zeros.dropLast() + trailer + length,
      "holds \(padded - 1) bytes, a 70000-byte payload and \(trailer.count)-byte trailer get \(padded)")
    try check(good, payloadLength: padded, "holds \(padded) bytes, too few for a \(padded)-byte payload")
    try check(
      good, payloadLength: 69_000,
      "holds \(padded) bytes, a 69000-byte payload and \(trailer.count)-byte trailer get 69632")
    let tooLong = LengthPrefixedPayload.lengthBytes(padded)
    let opening = { (plaintext: [UInt8]) in
      let path = self.folder + "/bad-length"
      try writeBytes(sealedSeekableBlob(plaintext, kind: .original, key: self.key), to: path)
      return try self.open(path)
    }
    assertDamaged(
      try opening(body + zeros + trailer + tooLong), "its trailer length \(padded) is out of range")
    assertDamaged(try opening([1, 2]), "holds 2 bytes, too few for a trailer")
  }

  func testATrailerAcrossTwoChunksAndALengthAcrossTwoChunksRead() throws {
    // Payload sizes that leave the trailer's length, then the trailer, split by a chunk's end.
    let trailer = [UInt8](repeating: 0x7B, count: 3000)
    for size in [131_072 - 3002, 131_072 - 3004 - 1000, 65536 - 3002] {
      let path = try writeBlob(payload(size), trailer: trailer)
      let reader = try open(path)
      XCTAssertEqual(reader.trailer, trailer, "size \(size)")
      XCTAssertNoThrow(try reader.checkPadding(payloadLength: size))
    }
  }

  func testNoncesFollowTheFormat() {
    let prefix = Array(0..<16).map(UInt8.init)
    XCTAssertEqual(
      SeekableBlobFormat.nonce(prefix: prefix, index: 0x0102_0304_0506, last: true),
      prefix + [0, 1, 2, 3, 4, 5, 6, 1])
    XCTAssertEqual(
      SeekableBlobFormat.nonce(prefix: prefix, index: 0, last: false),
      prefix + [UInt8](repeating: 0, count: 8))
  }

  /// A blob refused while opening closes its descriptor once: closed twice, the number
  /// may by then belong to a file another thread opened (verify reads on every core).
  func testARefusedBlobClosesItsDescriptorOnce() throws {
    let (_, header, chunks) = try fourChunks()
    var damaged = chunks
    damaged[0][100] ^= 1
    let path = folder + "/damaged"
    try writeBytes(header + damaged.joined(), to: path)
    let watcher = DescriptorWatcher()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      watcher.run()
      done.signal()
    }
    for _ in 0..<5000 {
      XCTAssertThrowsError(try open(path))
    }
    watcher.stop()
    done.wait()
    XCTAssertEqual(watcher.closedUnderneath, 0, "another thread's descriptor was closed")
  }

  /// The blob's bytes do not depend on how the payload is sliced: pieces larger than a
  /// chunk, whose whole chunks are sealed straight from the caller's bytes, give the same
  /// blob as pieces that all go through the writer's own buffer.
  func testAPayloadSlicedAnyWayMakesTheSameBlob() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    let chunk = SeekableBlobFormat.chunkSize
    let prefix = [UInt8](repeating: 7, count: SeekableBlobFormat.noncePrefixLength)
    func blob(_ payload: [UInt8], pieces: (Int) -> Int) throws -> [UInt8] {
      let file = try TemporaryFile(in: folder)
      let writer = try SeekableBlobWriter(kind: .original, key: key, output: file, noncePrefix: prefix)
      var offset = 0
      while offset < payload.count {
        let end = min(payload.count, offset + max(1, pieces(payload.count - offset)))
        try writer.write(Array(payload[offset..<end]))
        offset = end
      }
      try writer.finish(trailer: trailer)
      let path = folder + "/" + BlobID.random().hex
      try file.replace(path)
      return try fileBytes(path)
    }
    for _ in 0..<20 {
      let count =
        Int.random(in: 0...4, using: &generator) * chunk + Int.random(in: -2...2, using: &generator)
      let payload = (0..<max(0, count)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let small = try blob(payload) { _ in 4093 }
      let large = try blob(payload) {
        [Int.random(in: 1...(5 * chunk), using: &generator), $0].randomElement(using: &generator)!
      }
      XCTAssertEqual(small, large, "seed \(seed), payload of \(payload.count) bytes")
    }
  }
}

/// Opens /dev/null again and again on its own thread, counting the times its descriptor
/// was closed by someone else while it held it.
final class DescriptorWatcher: @unchecked Sendable {
  private let lock = NSLock()
  private var stopped = false
  private var count = 0

  var closedUnderneath: Int { lock.withLock { count } }

  func stop() { lock.withLock { stopped = true } }

  func run() {
    while !lock.withLock({ stopped }) {
      let descriptor = Glibc.open("/dev/null", O_RDONLY)
      for _ in 0..<50 where fcntl(descriptor, F_GETFD) == -1 {
        lock.withLock { count += 1 }
      }
      close(descriptor)
    }
  }
}
