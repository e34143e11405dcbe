import XCTest

@testable import VaultCore

/// Checks docs/FORMAT.md's `seekable blob` vectors: the writer makes exactly those bytes
/// from the fixed key and nonce prefix, and the reader gives back the payload and trailer.
final class SeekableBlobVectorTests: XCTestCase {
  func testSeekableBlobVectors() throws {
    let folder = try makeTemporaryFolder(self)
    let vectors = try formatVectors(named: "seekable blob")
    XCTAssertFalse(vectors.isEmpty)
    for vector in vectors {
      let key = secureBytes(try hexField(vector, "key"))
      let kind = try XCTUnwrap(BlobKind(rawValue: try hexField(vector, "kind").first!))
      let noncePrefix = try hexField(vector, "nonce-prefix")
      let payload = (0..<(try numbersField(vector, "payload-length")[0])).map { UInt8($0 % 251) }
      let trailer = try hexField(vector, "trailer")

      let file = try TemporaryFile(in: folder)
      let writer = try SeekableBlobWriter(kind: kind, key: key, output: file, noncePrefix: noncePrefix)
      try writer.write(payload)
      try writer.finish(trailer: trailer)
      let path = folder + "/vector"
      try file.replace(path)
      let blob = try fileBytes(path)

      let plaintextLength = try numbersField(vector, "plaintext-length")[0]
      XCTAssertEqual(
        SeekableBlobFormat.plaintextLength(payloadLength: payload.count, trailerLength: trailer.count),
        plaintextLength)
      XCTAssertEqual(blob.count, try numbersField(vector, "blob-length")[0])
      XCTAssertEqual(blob.count, SeekableBlobFormat.blobLength(plaintextLength: plaintextLength))
      let start = try hexField(vector, "blob-start")
      XCTAssertEqual(hexString(Array(blob.prefix(start.count))), hexString(start))
      let chunks = SeekableBlobFormat.chunkCount(plaintextLength: plaintextLength)
      for index in 0..<chunks {
        let last = index == chunks - 1
        XCTAssertEqual(
          hexString(SeekableBlobFormat.nonce(prefix: noncePrefix, index: index, last: last)),
          hexString(try hexField(vector, "nonce-\(index)")))
        let end =
          last
          ? blob.count : SeekableBlobFormat.headerLength + (index + 1) * SeekableBlobFormat.sealedChunkSize
        XCTAssertEqual(
          hexString(Array(blob[end - 16..<end])), hexString(try hexField(vector, "tag-\(index)")))
      }
      XCTAssertEqual(
        hexString(Sodium.genericHash(blob, length: 32)), hexString(try hexField(vector, "blob-blake2b")))

      let reader = try SeekableBlobReader(
        path: path, kind: kind, key: key, what: "vector", trailerLimit: 1 << 20)
      XCTAssertEqual(reader.trailer, trailer)
      try reader.checkPadding(payloadLength: payload.count)
      var read = [UInt8](repeating: 0, count: payload.count)
      try read.withUnsafeMutableBytes { try reader.read(at: 0, into: $0) }
      XCTAssertEqual(read, payload)
    }
  }
}
