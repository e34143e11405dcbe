import Foundation
import XCTest

@testable import VaultCore

/// The names an export gives its files (and `vault mount` its folders' files): a Live
/// Photo's MOV right after its still, names made safe, and a name already given numbered.
final class ExportNamesTests: XCTestCase {
  func record(_ name: String, _ number: Int, format: ImageFormat = .jpeg) -> PhotoRecord {
    let id = String(format: "%032x", number)
    return PhotoRecord(
      id: BlobID(hex: id)!, name: name, bytes: 100, format: format, width: 4, height: 3, orientation: 1,
      modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0), contentHash: id)
  }

  func names(_ names: [String]) -> [String] {
    PhotoExporter.namesInEmptyFolder(names.enumerated().map { record($1, $0 + 1) })
  }

  func testCollidingNamesAreNumberedInTheirOrder() {
    XCTAssertEqual(
      names(["IMG.jpg", "IMG.jpg", "a.png", "IMG.jpg", "IMG (1).jpg", "noext", "noext"]),
      ["IMG.jpg", "IMG (1).jpg", "a.png", "IMG (2).jpg", "IMG (1) (1).jpg", "noext", "noext (1)"])
  }

  func testNamesThatCollideOnceMadeSafeAreNumbered() {
    XCTAssertEqual(
      names(["IMG\u{1B}.jpg", "IMG_.jpg", "IMG\u{202E}.jpg", "..", "..\u{301}"]),
      ["IMG_.jpg", "IMG_ (1).jpg", "IMG_ (2).jpg", "photo", "photo (1)"])
  }

  func testALivePhotosMotionComesRightAfterItsStill() {
    var live = PhotoModel(isSelected: false, record: record("IMG_0001.JPG", 1))
    live.motion = record("IMG_0001.MOV", 2, format: .mov)
    let plain = PhotoModel(isSelected: false, record: record("IMG_0002.JPG", 3))
    XCTAssertEqual(
      PhotoExporter.originals(of: [live, plain]).map(\.name),
      ["IMG_0001.JPG", "IMG_0001.MOV", "IMG_0002.JPG"])
    XCTAssertEqual(
      PhotoExporter.namesInEmptyFolder(PhotoExporter.originals(of: [live, live])),
      ["IMG_0001.JPG", "IMG_0001.MOV", "IMG_0001 (1).JPG", "IMG_0001 (1).MOV"])
  }

  /// Names from a small alphabet, so that most collide: every name given is distinct, the
  /// first of each safe name is kept as it is, and the later ones are it, numbered from 1
  /// up, in order.
  func testRandomNamesAreDistinctAndNumberedInOrder() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    let pieces = ["a", "b", ".jpg", ".", " ", "/", "\u{1}", "\u{202E}", "é", "e\u{301}", " (1)"]
    for _ in 0..<200 {
      let wanted = (0..<Int.random(in: 1...30, using: &random)).map { _ in
        (0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }
          .joined()
      }
      let given = names(wanted)
      XCTAssertEqual(Set(given).count, given.count, "names given twice: \(given) (seed \(seed))")
      var uses: [String: Int] = [:]
      var taken = Set<String>()
      for (name, result) in zip(wanted, given) {
        let safe = PhotoExporter.safeName(name)
        var number = uses[safe, default: 0]
        while taken.contains(PathComponent.numbered(safe, number)) { number += 1 }
        uses[safe] = number + 1
        taken.insert(result)
        XCTAssertEqual(result, PathComponent.numbered(safe, number), "\(wanted) (seed \(seed))")
      }
    }
  }
}
