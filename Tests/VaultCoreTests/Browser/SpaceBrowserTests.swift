import Foundation
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// `Space.makeBrowser`: the browser over a real space, and photos decoded from its originals.
final class SpaceBrowserTests: XCTestCase {
  var folder = ""
  var vault: Vault!
  var space: Space!

  override func setUpWithError() throws {
    (folder, vault, space) = try makeOpenedSpace(self, password: "browse")
  }

  override func tearDown() {
    // XCTest keeps each test's instance: the space (and its lock) would outlive the test.
    space = nil
    vault = nil
  }

  /// Imports `paths` and returns a browser over the space.
  func browser(importing paths: [String]) throws -> PhotoBrowser {
    var failures: [String] = []
    try PhotoImporter().importFiles(paths, into: space) { event, _ in
      if case .failed(let path, let error) = event { failures.append("\(path): \(error)") }
    }
    XCTAssertEqual(failures, [])
    return space.makeBrowser()
  }

  func fixtures(_ names: String...) -> [String] {
    names.map { fixturesPath + "/" + $0 }
  }

  /// Writes `bytes` as `name` in the test's folder and returns its path.
  func file(_ name: String, _ bytes: [UInt8]) throws -> String {
    try writeBytes(bytes, to: folder + "/" + name)
    return folder + "/" + name
  }

  func testItsModelsCarryTheBlobsLocationsAndItsSummaryCountsThem() throws {
    let browser = try browser(importing: fixtures("photo.jpg", "gray.png"))
    try browser.setSelected([1], true)
    for photo in browser.listed(selectedOnly: false, from: nil, count: nil).map(\.photo) {
      XCTAssertEqual(photo.photoURL.path, space.directory + "/Photo/" + photo.record.id.hex)
      XCTAssertEqual(photo.thumbURL.path, space.directory + "/Thumb/" + photo.record.id.hex)
      XCTAssertTrue(FileManager.default.fileExists(atPath: photo.photoURL.path))
    }
    XCTAssertEqual(browser.summary(), space.summary(), "the browser counts what the space holds")
  }

  func testTheBrowserReadsAndChangesTheSpaceLive() throws {
    do {
      let browser = try browser(importing: fixtures("photo.jpg", "gray.png", "rgba.png"))
      XCTAssertEqual(browser.count, 3)
      // Changed outside the browser: it shows the catalog it holds until it reloads, then
      // its count and photos follow.
      try space.deletePhotos(ids: [space.entries[0].record.id])
      XCTAssertEqual(browser.count, 3)
      browser.reloadData()
      XCTAssertEqual(browser.count, 2)
      XCTAssertEqual(browser.photo(at: 0)?.record.name, "gray.png")

      try browser.setSelected([1], true)
      XCTAssertEqual(space.entries.map(\.selected), [false, true])
      try browser.invertSelection()
      XCTAssertEqual(browser.selectedPhotos().map(\.photo.record.name), ["gray.png"])

      let doomed = try browser.photos(chosenBy: .selected, action: "deleting").map(\.photo)
      try browser.delete(doomed, forGood: true)
      XCTAssertEqual(browser.count, 1)
      XCTAssertFalse(FileManager.default.fileExists(atPath: space.photoPath(doomed[0].record.id)))
    }
    // The browser held the space (and its lock) until here.
    space = nil
    let reopened = try vault.unlock(password: password("browse"), access: .read)
    XCTAssertEqual(
      reopened.makeBrowser().listed(selectedOnly: false, from: nil, count: nil).map(\.photo.record.name),
      ["rgba.png"])
  }

  func testAnOrientedJPEGComesBackUprightFromItsOriginal() throws {
    let browser = try browser(importing: fixtures("orientation-6.jpg"))
    let photo = try browser.originalImage(at: 0, minimumSize: nil)
    XCTAssertEqual(photo.fullSize, PixelSize(width: 48, height: 32), "as shown: stored 32×48, turned")
    XCTAssertEqual(photo.scaleDenominator, 1)
    let stored = try RGBImage.decodeJPEG(fileBytes(fixturesPath + "/orientation-6.jpg"), name: "fixture")
    XCTAssertEqual(photo.image, stored.oriented(6), "the original, decoded and turned")
    assertUprightQuadrants(photo.image, "orientation-6.jpg")
  }

  func testEveryOrientationIsShownUpright() throws {
    for orientation in 1...8 {
      let name = "orientation-\(orientation).jpg"
      let photo = try PhotoDecoder.decode(
        PlaintextBytes(fileBytes(fixturesPath + "/" + name)), format: .jpeg, name: name, minimumSize: nil,
        limits: Thumbnailer())
      XCTAssertEqual(photo.fullSize, PixelSize(width: 48, height: 32), name)
      assertUprightQuadrants(photo.image, name)
    }
  }

  func testAPNGIsDecodedWholeOverTheThumbnailersGray() throws {
    let browser = try browser(importing: fixtures("rgba.png"))
    let photo = try browser.originalImage(at: 0, minimumSize: PixelSize(width: 4, height: 3))
    XCTAssertEqual(photo.scaleDenominator, 1, "a PNG has no DCT scale")
    XCTAssertEqual(photo.fullSize, PixelSize(width: 32, height: 24))
    // Fixtures/generate.py: red x·8, green y·10, blue 100, alpha x·8.
    var expected: [UInt8] = []
    for y in 0..<24 {
      for x in 0..<32 {
        let alpha = x * 8
        for value in [x * 8, y * 10, 100] {
          expected.append(UInt8((value * alpha + 128 * (255 - alpha) + 127) / 255))
        }
      }
    }
    XCTAssertEqual(photo.image.pixels, expected)
  }

  func testTheDCTScaleIsTheLargestThatStillGivesTheSizeAsShown() throws {
    // Stored 800×400, shown 400×800.
    let path = try file(
      "tall.jpg", TestImages.jpeg(TestImages.photoLike(width: 800, height: 400), orientation: 6))
    let browser = try browser(importing: [path])
    func decoded(_ width: Int, _ height: Int) throws -> (Int, Int, Int) {
      let photo = try browser.originalImage(at: 0, minimumSize: PixelSize(width: width, height: height))
      XCTAssertEqual(photo.fullSize, PixelSize(width: 400, height: 800))
      return (photo.scaleDenominator, photo.image.width, photo.image.height)
    }
    XCTAssertTrue(try decoded(50, 100) == (8, 50, 100))
    // Taken as stored (unturned), 100×200 would need 1/2; as shown, 1/4 gives it.
    XCTAssertTrue(try decoded(100, 200) == (4, 100, 200))
    XCTAssertTrue(try decoded(100, 201) == (2, 200, 400))
    XCTAssertTrue(try decoded(401, 10) == (1, 400, 800), "more than the photo has: full size")
    let full = try browser.originalImage(at: 0, minimumSize: nil)
    XCTAssertEqual([full.scaleDenominator, full.image.width, full.image.height], [1, 400, 800])
    let quarter = try browser.originalImage(at: 0, minimumSize: PixelSize(width: 100, height: 200))
    XCTAssertGreaterThan(
      TestImages.psnr(quarter.image, full.image.aspectFilled(width: 100, height: 200)), 25,
      "the scaled decode is the same picture")
  }

  func testATamperedOriginalIsRefused() throws {
    let browser = try browser(importing: fixtures("photo.jpg"))
    let path = space.photoPath(space.entries[0].record.id)
    var blob = try fileBytes(path)
    blob[blob.count / 2] ^= 0x01
    try writeBytes(blob, to: path)
    XCTAssertThrowsError(try browser.originalImage(at: 0, minimumSize: nil)) { error in
      guard case VaultError.damagedBlob(let what, _) = error else { return XCTFail("\(error)") }
      XCTAssertTrue(what.contains("photo.jpg"), what)
    }
    XCTAssertNoThrow(try browser.thumbnailImage(at: 0, minimumSize: PixelSize(width: 8, height: 8)))
  }

  func testLimitsRefuseAPhotoAsImportWould() throws {
    let browser = try browser(importing: fixtures("photo.jpg", "gray.png"))
    browser.thumbnailer.pixelLimit = 500
    for (index, name, width, height) in [(0, "photo.jpg", 64, 48), (1, "gray.png", 32, 24)] {
      XCTAssertThrowsError(try browser.originalImage(at: index, minimumSize: nil)) { error in
        XCTAssertEqual(
          error as? VaultError, .imageTooLarge(path: name, width: width, height: height, limit: 500))
      }
    }
    browser.thumbnailer = Thumbnailer()
    browser.thumbnailer.memoryLimit = Thumbnailer.fixedMemory + 1000
    XCTAssertThrowsError(try browser.originalImage(at: 0, minimumSize: nil)) { error in
      guard case VaultError.tooMuchMemory(let name, _, _) = error else { return XCTFail("\(error)") }
      XCTAssertEqual(name, "photo.jpg")
      XCTAssertTrue("\(error)".contains("of memory, over the"), "\(error)")
    }
  }

  func testDecryptedBytesAndDecodedPixelsAreWipedWhenReleased() throws {
    let browser = try browser(importing: fixtures("photo.jpg"))
    var original: PlaintextBytes? = try space.original(of: space.entries[0].record)
    XCTAssertEqual(original?.withUnsafeBytes { Array($0) }, try fileBytes(fixturesPath + "/photo.jpg"))
    // A decoder may hold the buffer longer; the plaintext goes with its owner all the same.
    let buffer = original!.pinned
    original = nil
    XCTAssertTrue(UnsafeBufferPointer(buffer.buffer).allSatisfy { $0 == 0 })

    var photo: DecodedPhoto? = try browser.originalImage(at: 0, minimumSize: nil)
    // A copy of the pixels shares their storage, so it sees what happens to them.
    let pixels = photo!.image.pixels
    XCTAssertTrue(pixels.contains { $0 != 0 })
    photo = nil
    XCTAssertTrue(pixels.allSatisfy { $0 == 0 }, "the decoded pixels were not wiped")
  }
}
