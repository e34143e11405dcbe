import Foundation
import XCTest

@testable import VaultCore

/// Blob sizes through the real importer: padded to a Padmé bucket, so that photos of
/// nearby sizes cannot be told apart, and format 1's unpadded blobs still read.
final class PaddingTests: XCTestCase {
  var folder = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  /// Fixtures/photo.jpg grown to exactly `size` bytes by a JPEG comment after its SOI
  /// marker: the same picture, different bytes for each size.
  func photo(ofSize size: Int) throws -> [UInt8] {
    let original = try fileBytes(fixturesPath + "/photo.jpg")
    let commentLength = size - original.count - 4
    XCTAssertTrue((0...65533).contains(commentLength))
    let segmentLength = commentLength + 2
    let comment =
      [0xFF, 0xFE, UInt8(segmentLength >> 8), UInt8(segmentLength & 0xFF)]
      + (0..<commentLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) }
    return Array(original[0..<2]) + comment + Array(original[2...])
  }

  func plaintextLength(_ path: String, kind: BlobKind, id: BlobID, space: Space) throws -> Int {
    let reader = try BlobReader(
      path: path, kind: kind, key: space.master.blobKey(kind: kind, id: id), what: path)
    XCTAssertEqual(reader.version, BlobFormat.paddedVersion)
    var plaintext = try reader.readToEnd(limit: 64 << 20)
    defer { plaintext.wipe() }
    return plaintext.count
  }

  func testPhotosOfNearbySizesMakeBlobsOfOneSize() throws {
    // Payloads (original + record) of about 16,550 and 17,250 bytes: both in the Padmé
    // bucket of 1024 bytes that ends at 17,408.
    let sizes = [16_200, 16_900]
    var paths: [String] = []
    for (number, size) in sizes.enumerated() {
      let path = folder + "/photo-\(number).jpg"
      try writeBytes(try photo(ofSize: size), to: path)
      paths.append(path)
    }
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    let space = try vault.unlock(password: password("first"), access: .write)
    try PhotoImporter().importFiles(paths, into: space) { _, _ in }
    XCTAssertEqual(space.entries.map(\.record.bytes), sizes.map(Int64.init))

    var blobSizes: [Int] = []
    for (entry, path) in zip(space.entries, paths) {
      let record = entry.record
      let blob = try fileBytes(space.photoPath(record.id)).count
      // Version 3: the original, padding, the record and its 4-byte length.
      let payload = try OriginalBlob.recordJSON(record).count + 4 + Int(record.bytes)
      XCTAssertEqual(blob, SeekableBlobFormat.blobLength(plaintextLength: Padme.paddedLength(payload)))
      let reader = try SeekableBlobReader(
        path: space.photoPath(record.id), kind: .original,
        key: space.master.blobKey(kind: .original, id: record.id), what: "", trailerLimit: 1 << 20)
      XCTAssertEqual(reader.plaintextLength, Padme.paddedLength(payload))
      blobSizes.append(blob)

      var exported: [UInt8] = []
      try space.openOriginal(record).readContent { exported.append(contentsOf: $0) }
      XCTAssertEqual(exported, try fileBytes(path), "the original comes back without its padding")

      let thumbnail = try space.thumbnail(of: record)
      XCTAssertEqual(
        try fileBytes(space.thumbPath(record.id)).count,
        BlobFormat.paddedBlobLength(payloadLength: LengthPrefixedPayload.lengthSize + thumbnail.count))
    }
    XCTAssertEqual(blobSizes[0], blobSizes[1], "700 bytes apart, in one bucket")
    XCTAssertEqual(blobSizes[0], SeekableBlobFormat.blobLength(plaintextLength: 17_408))
    XCTAssertEqual(SpaceVerifier(space: space).verify().filter(\.isProblem), [])
  }

  func testFormat1BlobsStillRead() throws {
    // The committed format-1 vault (Tests/Compatibility), opened in this process: its blobs
    // are version 1, read to their end, with no padding.
    let copy = folder + "/vault-v1"
    try FileManager.default.copyItem(atPath: projectPath + "/Tests/Compatibility/vault-v1", toPath: copy)
    let space = try Vault.open(at: copy).unlock(password: password("compatibility v1"), access: .read)
    XCTAssertEqual(space.entries.map(\.record.name), ["photo.jpg", "palette.png", "orientation-6.jpg"])
    for entry in space.entries {
      let record = entry.record
      for (kind, path) in [
        (BlobKind.original, space.photoPath(record.id)), (.thumbnail, space.thumbPath(record.id)),
      ] {
        let reader = try BlobReader(
          path: path, kind: kind, key: space.master.blobKey(kind: kind, id: record.id), what: path)
        XCTAssertEqual(reader.version, BlobFormat.unpaddedVersion, path)
      }
      var original: [UInt8] = []
      try space.openOriginal(record).readContent { original.append(contentsOf: $0) }
      XCTAssertEqual(original, try fileBytes(fixturesPath + "/" + record.name))
      let thumbnail = try space.thumbnail(of: record)
      XCTAssertEqual(Array(thumbnail.prefix(2)), [0xFF, 0xD8], "a JPEG, with no length before it")
      XCTAssertEqual(
        try fileBytes(space.thumbPath(record.id)).count,
        BlobFormat.blobLength(plaintextLength: thumbnail.count))
    }
    XCTAssertEqual(SpaceVerifier(space: space).verify().filter(\.isProblem), [])
  }
}
