import Foundation
import XCTest

@testable import VaultCore

/// An upload's original, encrypted as it arrives, reads back by range before its record
/// is written (from sealed chunks on disk and the chunk still in memory), leaves no file
/// with a name until it is linked in, and is then an original like any other.
final class StreamedOriginalTests: XCTestCase {
  var folder = ""
  var vault: Vault!
  var space: Space!

  override func setUpWithError() throws {
    (folder, vault, space) = try makeOpenedSpace(self, password: "first", access: .read)
  }

  func payload(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ ($0 >> 16)) }
  }

  func testRangesReadBackAcrossChunksBeforeTheRecordIsWritten() throws {
    let bytes = payload(3 * SeekableBlobFormat.chunkSize + 1234)
    let original = try StreamedOriginal(in: space, name: "clip.mp4")
    var offset = 0
    var piece = 1
    while offset < bytes.count {
      let end = min(bytes.count, offset + piece)
      try bytes[offset..<end].withUnsafeBytes { try original.write($0) }
      offset = end
      piece = piece * 3 + 7
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: space.photoDirectory), [])
    let chunk = SeekableBlobFormat.chunkSize
    for (start, count) in [
      (0, 64), (chunk - 10, 20), (2 * chunk - 1, chunk + 2), (3 * chunk - 5, 100), (bytes.count - 10, 50),
      (0, bytes.count), (bytes.count, 10),
    ] {
      var buffer = [UInt8](repeating: 0, count: count)
      let read = try buffer.withUnsafeMutableBytes { try original.read(at: start, into: $0) }
      let expected = Array(bytes[min(start, bytes.count)..<min(bytes.count, start + count)])
      XCTAssertEqual(Array(buffer[0..<read]), expected, "\(count) bytes from \(start)")
    }
    let whole = try original.readWhole()
    XCTAssertEqual(Array(whole.buffer), bytes)
  }

  func testOnceFinishedAndLinkedItIsAnOriginalLikeAnyOther() throws {
    let bytes = payload(100_000)
    let original = try StreamedOriginal(in: space, name: "clip.mp4")
    try bytes.withUnsafeBytes { try original.write($0) }
    let record = PhotoRecord(
      id: original.id, name: "clip.mp4", bytes: Int64(bytes.count), format: .mp4, width: 1, height: 1,
      orientation: 1, modifiedAt: .now(), importedAt: .now(), contentHash: "00")
    try original.finish(record: record)
    XCTAssertTrue(try original.file.moveWithoutReplacing(to: space.photoPath(record.id)))
    let reader = try space.openOriginal(record)
    XCTAssertEqual(reader.record, record)
    let ranges = OriginalRangeReader(reader)
    var buffer = [UInt8](repeating: 0, count: 1000)
    let read = try buffer.withUnsafeMutableBytes { try ranges.read(at: 70_000, into: $0) }
    XCTAssertEqual(Array(buffer[0..<read]), Array(bytes[70_000..<71_000]))
  }
}
