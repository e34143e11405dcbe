import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// `add` and `serve` store files through one pipeline: one record assembly, one duplicate
/// check, one commit.
final class ImportPipelineTests: XCTestCase {
  /// Random photos, and a video, each added from a file to one copy of a space and
  /// uploaded to another copy of it (same keys, so the same content hashes): every record
  /// is the same but for its id and when it was imported.
  func testAddAndAnUploadMakeTheSameRecordOfTheSameFile() async throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    let folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    try FileManager.default.copyItem(atPath: folder + "/vault", toPath: folder + "/copy")
    try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
    var files = try (0..<6).map { try writeRandomPhoto(number: $0, in: folder + "/in", using: &generator) }
    files.append(folder + "/in/clip.mp4")
    try TestVideos.h264MP4(files.last!)

    let added = try vault.unlock(password: password("first"), access: .write)
    try PhotoImporter(parallelism: 2).importFiles(files, into: added) { event, _ in
      if case .added = event {} else { XCTFail("seed \(seed): \(event)") }
    }
    let copy = try Vault.open(at: folder + "/copy").unlock(password: password("first"), access: .read)
    let intake = UploadIntake(space: copy, maxUploadBytes: 50 << 20)
    XCTAssertEqual(added.entries.count, files.count, "seed \(seed)")
    for (path, addedRecord) in zip(files, added.entries.map(\.record)) {
      let source = try SourceFile(path: path)
      let bytes = try fileBytes(path)
      let upload = try await intake.begin(
        name: (path as NSString).lastPathComponent, length: bytes.count, modifiedAt: source.modifiedAt)
      try bytes.withUnsafeBytes { try upload.append($0) }
      guard case .added(let uploadedRecord) = try upload.finish() else {
        XCTFail("seed \(seed): \(path) was not stored")
        continue
      }
      XCTAssertEqual(
        Self.withoutIdAndImportTime(uploadedRecord), Self.withoutIdAndImportTime(addedRecord),
        "seed \(seed): \(path)")
    }
  }

  /// The one duplicate check finds each photo by its content's keyed hash, and nothing
  /// for a content the space does not hold, or no longer holds.
  func testTheSpaceFindsAPhotoByItsContentHashUntilItIsDeleted() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    let (folder, _, space) = try makeOpenedSpace(self, password: "first")
    let files = try (0..<5).map { try writeRandomPhoto(number: $0, in: folder, using: &generator) }
    try PhotoImporter(parallelism: 2).importFiles(files, into: space) { _, _ in }
    let records = space.entries.map(\.record)
    XCTAssertEqual(records.count, files.count, "seed \(seed)")
    for record in records {
      XCTAssertEqual(space.listedPhoto(withContentHash: record.contentHash), record.id, "seed \(seed)")
    }
    let unknown = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
    XCTAssertNil(space.listedPhoto(withContentHash: unknown.joined()), "seed \(seed)")
    try space.deletePhotos(ids: [records[0].id])
    XCTAssertNil(space.listedPhoto(withContentHash: records[0].contentHash), "seed \(seed)")
    XCTAssertEqual(space.listedPhoto(withContentHash: records[1].contentHash), records[1].id, "seed \(seed)")
  }

  /// Copies of one content among the files of one import, prepared side by side on several
  /// threads: each content is stored once, every other copy reported as a duplicate of it.
  func testCopiesWithinOneAddAreStoredOnce() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    let (folder, _, space) = try makeOpenedSpace(self, password: "first")
    let originals = try (0..<4).map { try writeRandomPhoto(number: $0, in: folder, using: &generator) }
    // Each original right before its copies: they are prepared at once, on several
    // threads, and mostly reach the batch together, before any of them is listed.
    var files: [String] = []
    for (number, original) in originals.enumerated() {
      files.append(original)
      for copy in 0..<Int.random(in: 1...4, using: &generator) {
        let path = folder + "/copy-\(number)-\(copy)-" + (original as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: original, toPath: path)
        files.append(path)
      }
    }
    var added: [String: String] = [:]
    var duplicates: [String] = []
    try PhotoImporter(parallelism: 4).importFiles(files, into: space) { event, _ in
      switch event {
      case .added(let path, let record): added[record.contentHash] = path
      case .duplicate(let path, _): duplicates.append(path)
      default: XCTFail("seed \(seed): \(event)")
      }
    }
    XCTAssertEqual(added.count, originals.count, "seed \(seed)")
    XCTAssertEqual(added.count + duplicates.count, files.count, "seed \(seed)")
    XCTAssertEqual(Set(space.entries.map(\.record.contentHash)), Set(added.keys), "seed \(seed)")
    XCTAssertEqual(space.entries.count, originals.count, "seed \(seed)")
  }

  /// A JPEG (with a random EXIF orientation) or a PNG (interlaced or not) of a random size.
  private func writeRandomPhoto(
    number: Int, in folder: String, using generator: inout SeededGenerator
  ) throws -> String {
    let image = TestImages.photoLike(
      width: Int.random(in: 1...700, using: &generator), height: Int.random(in: 1...700, using: &generator),
      seed: generator.next())
    let path: String
    let bytes: [UInt8]
    if Bool.random(using: &generator) {
      path = folder + "/photo-\(number).jpg"
      bytes = try TestImages.jpeg(image, orientation: UInt16.random(in: 1...8, using: &generator))
    } else {
      path = folder + "/photo-\(number).png"
      bytes = TestImages.png(image, interlaced: Bool.random(using: &generator))
    }
    try writeBytes(bytes, to: path)
    return path
  }

  private static func withoutIdAndImportTime(_ record: PhotoRecord) -> PhotoRecord {
    var record = record
    record.id = BlobID(high: 0, low: 0)
    record.importedAt = Timestamp(seconds: 0)
    return record
  }
}
