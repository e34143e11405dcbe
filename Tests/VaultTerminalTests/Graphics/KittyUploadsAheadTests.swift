import Foundation
import VaultCore
import XCTest

@testable import VaultTerminal

/// Kitty uploads sent ahead are made on a background thread, then written by a later frame.
final class KittyUploadsAheadTests: XCTestCase {
  let photo = RGBImage(width: 4, height: 3, pixels: [UInt8](repeating: 7, count: 36))
  let key = PictureKey.thumbnail(BlobID(hex: String(repeating: "2", count: 32))!)
  let whole = PixelRect(x: 0, y: 0, width: 4, height: 3)

  /// A kitty drawing in a frame whose `preload` of `key` wrote nothing, once the upload is
  /// made in the background (the owner is told).
  func kittyWithUploadMadeAhead() -> KittyPictureDrawing {
    let made = expectation(description: "upload made")
    let kitty = KittyPictureDrawing(madeAhead: { made.fulfill() })
    let photo = photo
    _ = kitty.beginFrame()
    XCTAssertEqual(kitty.preload(key: key) { .photo(photo) }, [])
    wait(for: [made], timeout: 60)
    return kitty
  }

  func drawn(_ kitty: KittyPictureDrawing) -> String {
    let photo = photo
    return String(
      decoding: kitty.draw(key: key, source: whole, column: 0, row: 0, columns: 1, rows: 1) { .photo(photo) },
      as: UTF8.self)
  }

  /// `preload` writes nothing until the upload is made, then the upload (direct
  /// transmission, as PNG: made in the background, it may take the time to halve the
  /// bytes); drawing the picture after that is a placement only.
  func testAPictureSentAheadIsMadeInTheBackgroundThenOnlyPlaced() throws {
    let kitty = kittyWithUploadMadeAhead()
    let photo = photo
    let upload = String(decoding: kitty.preload(key: key) { .photo(photo) }, as: UTF8.self)
    XCTAssertTrue(upload.hasPrefix("\u{1B}_Ga=t,t=d,f=100,s=4,v=3,"), upload)
    let payload = try XCTUnwrap(upload.split(separator: ";").dropFirst().first?.prefix { $0 != "\u{1B}" })
    let png = try XCTUnwrap(Data(base64Encoded: String(payload)))
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    let drawn = drawn(kitty)
    XCTAssertFalse(drawn.contains("a=t"), drawn)
    XCTAssertTrue(drawn.contains("\u{1B}_Ga=p,"), drawn)
  }

  /// A picture drawn before it was sent ahead (the first photo, a zoomed one) is uploaded in
  /// the frame as PNG too: a fraction of its raw pixels' bytes, which kitty reads slowly.
  func testAPictureDrawnAtOnceIsUploadedAsPNG() throws {
    let kitty = KittyPictureDrawing()
    _ = kitty.beginFrame()
    let upload = drawn(kitty)
    XCTAssertTrue(upload.hasPrefix("\u{1B}_Ga=t,t=d,f=100,s=4,v=3,"), upload)
    let payload = try XCTUnwrap(upload.split(separator: ";").dropFirst().first?.prefix { $0 != "\u{1B}" })
    let png = try XCTUnwrap(Data(base64Encoded: String(payload)))
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    XCTAssertTrue(upload.contains("\u{1B}_Ga=p,"), upload)
  }

  /// An upload made ahead and no longer wanted at the end of a frame is dropped: drawn
  /// later, the picture is uploaded then.
  func testAnUploadNoLongerWantedIsDropped() {
    let kitty = kittyWithUploadMadeAhead()
    _ = kitty.endFrame(keep: [])
    _ = kitty.beginFrame()
    let drawn = drawn(kitty)
    XCTAssertTrue(drawn.hasPrefix("\u{1B}_Ga=t,t=d,"), drawn)
  }
}
