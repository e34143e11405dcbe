import Foundation
import VaultCore
import XCTest

extension VaultRunner {
  /// Exports every photo to `out` and every thumbnail to `thumbs` (in the working
  /// directory): each of `originals` comes back as the file of that name in `source` was,
  /// bit for bit, and the thumbnail of each of `quadrants` shows the quadrants upright.
  func assertExportsBitForBit(
    _ originals: [String], from source: String, uprightThumbnails quadrants: [String],
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let exported = try run(["export", "--all", "--to", "out"])
    XCTAssertEqual(exported.status, 0, exported.stderr, file: file, line: line)
    for name in originals {
      XCTAssertEqual(
        try fileBytes(workingDirectory + "/out/" + name), try fileBytes(source + "/" + name), name,
        file: file,
        line: line)
    }
    let thumbs = try run(["export", "--all", "--thumbs", "--to", "thumbs"])
    XCTAssertEqual(thumbs.status, 0, thumbs.stderr, file: file, line: line)
    for name in quadrants {
      let jpeg = try fileBytes(
        workingDirectory + "/thumbs/" + (name as NSString).deletingPathExtension + ".jpg")
      assertUprightQuadrants(try RGBImage.decodeJPEG(jpeg, name: name), name, file: file, line: line)
    }
  }
}
