import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Reading an original whole (export, verify) checks it against its record's content hash,
/// both when its chunks are read one by one and when a big one is decrypted ahead and hashed
/// on threads of their own: the bytes come back bit for bit, and an original that does not
/// hash to its record is named as damaged.
final class OriginalContentCheckTests: XCTestCase {
  /// Fixtures/photo.jpg followed by `extra` random bytes (decoders stop at its end marker),
  /// imported; the file and its record.
  func importPhoto(extra: Int, into space: Space, folder: String) throws -> ([UInt8], PhotoRecord) {
    var random = SeededGenerator(seed: UInt64(extra))
    let file =
      try fileBytes(fixturesPath + "/photo.jpg")
      + (0..<extra).map { _ in UInt8.random(in: 0...255, using: &random) }
    let path = folder + "/clip-\(extra).jpg"
    try writeBytes(file, to: path)
    try PhotoImporter().importFiles([path], into: space) { _, _ in }
    let record = try XCTUnwrap(space.entries.first { $0.record.bytes == Int64(file.count) }?.record)
    return (file, record)
  }

  /// Writes the blob of `record` again, as vault writes it, with `content` and `record`.
  func rewriteBlob(of record: PhotoRecord, content: [UInt8], in space: Space) throws {
    let path = space.photoPath(record.id)
    let file = try TemporaryFile(in: parentFolder(path))
    let writer = try SeekableBlobWriter(
      kind: .original, key: space.master.blobKey(kind: .original, id: record.id), output: file)
    try writer.write(content)
    try writer.finish(trailer: OriginalBlob.recordJSON(record))
    try file.replace(path)
  }

  func testAWholeReadComesBackBitForBitAndAWrongHashIsDamage() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder + "/vault")
    try vault.createSpace(password: password("check"))
    let space = try vault.unlock(password: password("check"), access: .write)
    // One photo read chunk by chunk, one big enough to be decrypted and hashed ahead.
    for extra in [300_000, OriginalBlobReader.readAheadLength + 100_000] {
      let (file, record) = try importPhoto(extra: extra, into: space, folder: folder)
      var whole: [UInt8] = []
      try space.openOriginal(record).readContent { whole += $0 }
      XCTAssertEqual(whole, file, "\(file.count) bytes")
      var wrong = record
      wrong.contentHash = String(repeating: "0", count: 64)
      try rewriteBlob(of: wrong, content: file, in: space)
      XCTAssertThrowsError(try space.openOriginal(wrong).readContent { _ in }) { error in
        XCTAssertEqual(
          error as? VaultError,
          .damagedBlob(what: space.describe(record), reason: "its content does not match its hash"),
          "\(file.count) bytes")
      }
    }
  }
}
