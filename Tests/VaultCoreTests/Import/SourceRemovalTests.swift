import Foundation
import XCTest

@testable import VaultCore

/// `SourceRemoval`, the checks `add --move` makes before it removes a file.
final class SourceRemovalTests: XCTestCase {
  func testAFileGoesOnlyWhileItIsWhatTheSpaceHolds() throws {
    let (folder, _, space) = try makeOpenedSpace(self, password: "move")
    let source = folder + "/card"
    try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
    for name in ["photo.jpg", "gray.png"] {
      try FileManager.default.copyItem(atPath: fixturesPath + "/" + name, toPath: source + "/" + name)
    }
    var records: [PhotoRecord] = []
    try PhotoImporter().importFiles([source + "/photo.jpg", source + "/gray.png"], into: space) { event, _ in
      if case .added(_, let record) = event { records.append(record) }
    }
    XCTAssertEqual(records.count, 2)
    let removal = SourceRemoval(space: space)

    // Changed after it was imported: what the space holds is no longer this file.
    var bytes = try fileBytes(source + "/gray.png")
    bytes[bytes.count - 1] ^= 1
    try writeBytes(bytes, to: source + "/gray.png")
    XCTAssertThrowsError(try removal.remove(source + "/gray.png", contentHash: records[1].contentHash)) {
      XCTAssertEqual(
        $0 as? VaultError, .io(path: source + "/gray.png", reason: "it changed since it was imported"))
    }
    XCTAssertTrue(fileExists(source + "/gray.png"))

    // A hash the space does not hold.
    XCTAssertThrowsError(
      try removal.remove(source + "/photo.jpg", contentHash: String(repeating: "0", count: 64)))
    XCTAssertTrue(fileExists(source + "/photo.jpg"))

    XCTAssertNoThrow(try removal.remove(source + "/photo.jpg", contentHash: records[0].contentHash))
    removal.syncFolders()
    XCTAssertFalse(fileExists(source + "/photo.jpg"))
  }
}
