import Foundation
import XCTest

/// A version-3 original changed at the level of whole chunks (cut at a chunk's end, a chunk
/// added, two swapped): `vault export` refuses it with one line naming the photo, writes
/// nothing for it, and exports the other photo.
final class SeekableOriginalTamperingTests: XCTestCase {
  let headerLength = 22
  let sealedChunk = 65536 + 16

  func testChunkLevelChangesAreNamedAndExportNothing() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder)
    let photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    // Four chunks: decoders stop at the JPEG's end marker.
    try writeBytes(
      try fileBytes(fixturesPath + "/photo.jpg") + [UInt8](repeating: 0x5A, count: 200_000),
      to: photos + "/a.jpg")
    try writeBytes(try fileBytes(fixturesPath + "/photo.jpg"), to: photos + "/b.jpg")
    XCTAssertEqual(try vault.run(["add", "--quiet", photos]).status, 0)
    let id = try XCTUnwrap(try vault.listJSON().first { $0["name"] as? String == "a.jpg" }?["id"] as? String)
    let path = try vault.spaceFolder() + "/Photo/" + id
    let intact = try fileBytes(path)
    XCTAssertEqual(intact[4], 3, "a seekable blob")
    let header = Array(intact[0..<headerLength])
    let chunks = stride(from: headerLength, to: intact.count, by: sealedChunk).map {
      Array(intact[$0..<min(intact.count, $0 + sealedChunk)])
    }
    XCTAssertEqual(chunks.count, 4)
    let end = { (index: Int) in
      "its last chunk (\(index)) does not authenticate as the end of the blob (changed, truncated or extended)"
    }
    let cases: [(String, [UInt8], String)] = [
      ("cut at a chunk's end", header + chunks[0..<3].joined(), end(2)),
      ("a chunk added", header + chunks.joined() + chunks[1], end(4)),
      (
        "two chunks swapped", header + [chunks[0], chunks[2], chunks[1], chunks[3]].joined(),
        "chunk 1 does not authenticate (changed, truncated or swapped)"
      ),
    ]
    for (number, (what, blob, reason)) in cases.enumerated() {
      try writeBytes(blob, to: path)
      let out = folder + "/out-\(number)"
      let export = try vault.run(["export", "--all", "--to", out])
      XCTAssertEqual(export.status, 1, "\(what): \(export.stderr)")
      XCTAssertTrue(
        export.stderr.contains("photo 'a.jpg' (Photo/\(id)) is damaged: \(reason)"),
        "\(what): \(export.stderr)")
      let written = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
      XCTAssertEqual(written, ["b.jpg"], "\(what): only the intact photo")
    }
  }
}
