import Foundation
import XCTest

@testable import VaultCore

/// Reading ranges of an original through the space, as the video player and `vault mount`
/// will: version 3 decrypts only the chunks of a range, versions 1 and 2 read from the start.
final class OriginalRangeTests: XCTestCase {
  var folder = ""
  var space: Space!
  var file: [UInt8] = []
  var record: PhotoRecord!

  /// Imports Fixtures/photo.jpg followed by `extra` bytes (decoders stop at its end marker).
  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    var random = SeededGenerator(seed: 7)
    file =
      try fileBytes(fixturesPath + "/photo.jpg")
      + (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &random) }
    try writeBytes(file, to: folder + "/clip.jpg")
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    space = try vault.unlock(password: password("first"), access: .write)
    try PhotoImporter().importFiles([folder + "/clip.jpg"], into: space) { _, _ in }
    record = try XCTUnwrap(space.entries.first?.record)
  }

  func read(_ reader: OriginalRangeReader, _ offset: Int, _ count: Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let read = try bytes.withUnsafeMutableBytes { try reader.read(at: Int64(offset), into: $0) }
    return Array(bytes[0..<read])
  }

  /// Random ranges, forwards and backwards, and ranges that run past the end.
  func assertRangesRead(_ reader: OriginalRangeReader, file: StaticString = #filePath, line: UInt = #line)
    throws
  {
    XCTAssertEqual(reader.size, Int64(self.file.count), file: file, line: line)
    var random = SeededGenerator(seed: 11)
    let size = self.file.count
    var ranges = [(0, size), (65535, 3), (size - 1, 10), (size, 5), (size + 100, 5), (131_072, 65536)]
    for _ in 0..<50 {
      let start = Int.random(in: 0..<size, using: &random)
      ranges.append((start, Int.random(in: 0...200_000, using: &random)))
    }
    for (offset, count) in ranges {
      let expected = offset >= size ? [] : Array(self.file[offset..<min(size, offset + count)])
      XCTAssertEqual(try read(reader, offset, count), expected, "\(offset)+\(count)", file: file, line: line)
    }
  }

  func testAnImportedOriginalIsSeekableAndReadsInRanges() throws {
    let blob = try fileBytes(space.photoPath(record.id))
    XCTAssertEqual(
      Array(blob[0..<6]), BlobFormat.prefix(kind: .original, version: SeekableBlobFormat.version))
    try assertRangesRead(try space.originalRanges(of: record))
    var whole: [UInt8] = []
    try space.openOriginal(record).readContent { whole.append(contentsOf: $0) }
    XCTAssertEqual(whole, file, "the original comes back bit for bit")
  }

  func testAVersion2OriginalReadsInRangesToo() throws {
    // The same photo as vault wrote it before version 3: the record first.
    let temporary = try TemporaryFile(in: space.photoDirectory)
    let writer = try BlobWriter(
      kind: .original, key: space.master.blobKey(kind: .original, id: record.id), output: temporary)
    try writer.write(try OriginalBlob.header(for: record) + file)
    try writer.finish()
    try temporary.replace(space.photoPath(record.id))
    XCTAssertEqual(try fileBytes(space.photoPath(record.id))[4], BlobFormat.paddedVersion)
    try assertRangesRead(try space.originalRanges(of: record))
    XCTAssertEqual(SpaceVerifier(space: space).verify().filter(\.isProblem), [])
  }

  func testADamagedChunkFailsOnlyTheRangesOverIt() throws {
    let path = space.photoPath(record.id)
    var blob = try fileBytes(path)
    blob[SeekableBlobFormat.headerLength + 2 * SeekableBlobFormat.sealedChunkSize + 99] ^= 0x20
    try writeBytes(blob, to: path)
    let reader = try space.originalRanges(of: record)
    XCTAssertEqual(try read(reader, 1000, 120_000), Array(file[1000..<121_000]))
    XCTAssertThrowsError(try read(reader, 131_071, 2)) { error in
      XCTAssertEqual(
        error as? VaultError,
        .damagedBlob(
          what: space.describe(record),
          reason: "chunk 2 does not authenticate (changed, truncated or swapped)"))
    }
    XCTAssertThrowsError(try space.openOriginal(record).readContent { _ in })
  }

  /// Checked at the end, the last chunk (which holds the trailer) is not read on opening:
  /// a damaged one fails only the reads that reach it, as any chunk does.
  func testWithTheRecordCheckedAtTheEndOpeningDoesNotReadTheLastChunk() throws {
    try assertRangesRead(try space.originalRanges(of: record, recordCheckedAtEnd: true))
    let path = space.photoPath(record.id)
    var blob = try fileBytes(path)
    blob[blob.count - 20] ^= 0x20
    try writeBytes(blob, to: path)
    XCTAssertThrowsError(try space.originalRanges(of: record))
    let reader = try space.originalRanges(of: record, recordCheckedAtEnd: true)
    XCTAssertEqual(try read(reader, 1000, 120_000), Array(file[1000..<121_000]))
    XCTAssertThrowsError(try read(reader, file.count - 10, 10)) { error in
      guard case .damagedBlob(_, let reason) = error as? VaultError else { return XCTFail("\(error)") }
      XCTAssertTrue(reason.contains("does not authenticate"), reason)
    }
  }

  /// An index whose record is not the blob's: found by the first read that reaches the
  /// end (before it hands anything out), and by every such read after it.
  func testWithTheRecordCheckedAtTheEndAMismatchFailsTheReadThatReachesTheEnd() throws {
    var other = record!
    other.contentHash = String(repeating: "0", count: record.contentHash.count)
    let reader = try space.originalRanges(of: other, recordCheckedAtEnd: true)
    XCTAssertEqual(try read(reader, 0, 70_000), Array(file[0..<70_000]))
    for _ in 0..<2 {
      XCTAssertThrowsError(try read(reader, file.count - 100, 200)) { error in
        XCTAssertEqual(
          error as? VaultError,
          .damagedBlob(what: space.describe(other), reason: "its record does not match the index"))
      }
    }
  }
}
