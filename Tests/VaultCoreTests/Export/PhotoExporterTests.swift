import Foundation
import XCTest

@testable import VaultCore

/// Export from a real space: names that collide with each other and with files already in
/// the folder, a Live Photo's two files, and a photo whose write fails part way.
final class PhotoExporterTests: XCTestCase {
  var folder = ""
  var space: Space!
  var target = ""

  override func setUpWithError() throws {
    let opened = try makeOpenedSpace(self, password: "first")
    (folder, space) = (opened.folder, opened.space)
    target = folder + "/out"
    try ExportTarget.make(target)
  }

  func imported(_ paths: [String]) throws -> [PhotoModel] {
    try PhotoImporter().importFiles(paths, into: space) { _, _ in }
    return space.makeBrowser().listed(selectedOnly: false, from: nil, count: nil).map(\.photo)
  }

  /// Every file in `target`, hidden ones too.
  func listing() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: target).sorted()
  }

  func export(_ photos: [PhotoModel]) -> (paths: [String], failed: [String]) {
    var paths: [String] = []
    var failed: [String] = []
    PhotoExporter(browser: space.makeBrowser(), parallelism: 2).export(photos, to: target, thumbnails: false)
    {
      switch $0 {
      case .exported(_, let path): paths.append(path)
      case .failed(let name, _): failed.append(name)
      }
    }
    return (paths, failed)
  }

  func png(_ seed: UInt64, side: Int = 24) -> [UInt8] {
    TestImages.png(TestImages.photoLike(width: side, height: side, seed: seed), interlaced: false)
  }

  func testCollidingNamesAreNumberedAndAFileThereIsNeverOverwritten() throws {
    for (index, subfolder) in ["one", "two"].enumerated() {
      try FileManager.default.createDirectory(
        atPath: folder + "/" + subfolder, withIntermediateDirectories: true)
      try writeBytes(png(UInt64(index + 1)), to: folder + "/\(subfolder)/IMG.png")
    }
    let photos = try imported([folder + "/one/IMG.png", folder + "/two/IMG.png"])
    try writeBytes(Array("already here".utf8), to: target + "/IMG.png")
    let (paths, failed) = export(photos)
    XCTAssertEqual(failed, [])
    XCTAssertEqual(paths, [target + "/IMG (1).png", target + "/IMG (2).png"])
    XCTAssertEqual(try fileBytes(target + "/IMG.png"), Array("already here".utf8))
    let exported = Set(try paths.map { try fileBytes($0) })
    XCTAssertEqual(exported, [png(1), png(2)])
  }

  func testALivePhotoExportsItsStillAndItsMOV() throws {
    try TestLivePhotos.still(folder + "/IMG_0001.JPG", identifier: "LIVE-0001")
    try TestLivePhotos.motion(folder + "/IMG_0001.MOV", identifier: "LIVE-0001")
    let photos = try imported([folder + "/IMG_0001.JPG", folder + "/IMG_0001.MOV"])
    XCTAssertEqual(photos.map(\.kind), [.live], "one item, a Live Photo")
    let (paths, failed) = export(photos)
    XCTAssertEqual(failed, [])
    XCTAssertEqual(paths, [target + "/IMG_0001.JPG", target + "/IMG_0001.MOV"])
    for name in ["IMG_0001.JPG", "IMG_0001.MOV"] {
      XCTAssertEqual(try fileBytes(target + "/" + name), try fileBytes(folder + "/" + name), name)
    }
  }

  /// A photo of several 64 KiB chunks damaged in a late one: its first chunks are written
  /// before the damage is found, and nothing of it is left in the folder, hidden or not.
  func testAWriteThatFailsPartWayLeavesNoFile() throws {
    let big = png(7, side: 400)
    XCTAssertGreaterThan(big.count, 4 * 65536, "several chunks")
    try writeBytes(big, to: folder + "/big.png")
    try writeBytes(png(8), to: folder + "/small.png")
    let photos = try imported([folder + "/big.png", folder + "/small.png"])
    let victim = try XCTUnwrap(photos.first { $0.record.name == "big.png" })
    var stored = try fileBytes(space.photoPath(victim.record.id))
    stored[stored.count * 3 / 4] ^= 1
    try writeBytes(stored, to: space.photoPath(victim.record.id))
    let (paths, failed) = export(photos)
    XCTAssertEqual(failed, ["big.png"])
    XCTAssertEqual(paths, [target + "/small.png"])
    XCTAssertEqual(try listing(), ["small.png"])
  }
}
