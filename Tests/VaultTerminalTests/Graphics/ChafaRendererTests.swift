import Foundation
import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// libchafa drawing a photo (`show`, `view` in symbols, sixel and iTerm2 modes).
final class ChafaRendererTests: XCTestCase {
  /// The truecolor colours (foreground and background) that symbols output uses.
  func colours(_ lines: [String]) -> [(Int, Int, Int)] {
    let pattern = try! NSRegularExpression(pattern: "\u{1B}\\[(?:38|48);2;(\\d+);(\\d+);(\\d+)m")
    return lines.flatMap { line -> [(Int, Int, Int)] in
      let range = NSRange(line.startIndex..., in: line)
      return pattern.matches(in: line, range: range).map { match in
        let value = { (group: Int) in Int(line[Range(match.range(at: group), in: line)!])! }
        return (value(1), value(2), value(3))
      }
    }
  }

  /// Rows of RGB whose length is not a multiple of 4 bytes (a 6-pixel row is 18 bytes):
  /// libchafa read them shifted, mixing the channels, and a red photo came out gray and
  /// striped when zoomed in (a crop of any width).
  /// However big the cells a terminal reports, and however many of them, libchafa's canvas
  /// stays under its limit; an ordinary screen keeps its cells.
  func testTheCanvasHasAtMostItsLimitOfPixels() {
    let huge = ChafaRenderer.cellGeometry(columns: 1000, rows: 1000, cell: PixelSize(width: 256, height: 256))
    XCTAssertLessThanOrEqual(1000 * 1000 * huge.width * huge.height, ChafaRenderer.canvasPixelLimit)
    XCTAssertGreaterThanOrEqual(huge.width, 1)
    let ordinary = PixelSize(width: 10, height: 20)
    XCTAssertEqual(ChafaRenderer.cellGeometry(columns: 200, rows: 60, cell: ordinary), ordinary)
  }

  func testRowsOfAnyWidthKeepTheirColours() throws {
    setenv("COLORTERM", "truecolor", 1)
    let graphics = try XCTUnwrap(TerminalGraphics.resolve(.symbols))
    for width in [6, 7, 8, 13] {
      let red = RGBImage(
        width: width, height: 16, pixels: Array([UInt8]([230, 20, 30]).repeated(width * 16)))
      let lines = ChafaRenderer(graphics: graphics, columns: 4, rows: 2).render(red)
      let used = colours(lines)
      XCTAssertFalse(used.isEmpty)
      for colour in used {
        XCTAssertTrue(
          colour.0 > 200 && colour.1 < 60 && colour.2 < 60, "width \(width): \(colour) is not the photo's red"
        )
      }
    }
  }
}

extension Array {
  fileprivate func repeated(_ times: Int) -> [Element] {
    (0..<times).flatMap { _ in self }
  }
}

/// What the viewer does with the terminal beside drawing.
final class PhotoViewerPartsTests: XCTestCase {
  func testAnExportFolderIsTakenAsAShellWould() {
    let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
    XCTAssertEqual(PhotoViewer.absolutePath("~/out"), home + "/out")
    XCTAssertEqual(PhotoViewer.absolutePath("~"), home)
    XCTAssertEqual(PhotoViewer.absolutePath("/tmp/x"), "/tmp/x")
    XCTAssertEqual(PhotoViewer.absolutePath("x"), FileManager.default.currentDirectoryPath + "/x")
  }

  /// A signal in the middle of a frame must still delete what the frame was deleting.
  func testKittysCleanupNamesImagesBeingDeletedUntilTheFrameIsSent() {
    let kitty = KittyPictureDrawing()
    let photo = RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 9, count: 12))
    let key = PictureKey.thumbnail(BlobID(hex: String(repeating: "1", count: 32))!)
    _ = kitty.beginFrame()
    let upload = kitty.draw(
      key: key, source: PixelRect(x: 0, y: 0, width: 2, height: 2), column: 0, row: 0, columns: 1, rows: 1
    ) { .photo(photo) }
    XCTAssertTrue(String(decoding: upload, as: UTF8.self).contains("a=t,t=d,"))
    let delete = String(decoding: KittyGraphics.delete(id: 1), as: UTF8.self)
    XCTAssertTrue(String(decoding: kitty.cleanup, as: UTF8.self).contains(delete))
    _ = kitty.endFrame(keep: [])
    _ = kitty.beginFrame()
    let blank = String(decoding: KittyGraphics.blank(id: 1), as: UTF8.self)
    XCTAssertTrue(String(decoding: kitty.endFrame(keep: []), as: UTF8.self).contains(blank))
    XCTAssertTrue(String(decoding: kitty.cleanup, as: UTF8.self).contains(delete), "still being deleted")
    kitty.deletionsSent()
    XCTAssertTrue(String(decoding: kitty.cleanup, as: UTF8.self).contains(delete), "held blank")
    XCTAssertTrue(String(decoding: kitty.finish(), as: UTF8.self).contains(delete), "held blank")
  }

  /// A picture no longer wanted is blanked, never deleted by id: kitty 0.26 dropped with an
  /// image deleted by id every one placed nowhere, the photo just left and those sent ahead.
  /// The next upload takes the blank's id, so kitty holds no more images than are in use.
  func testKittyBlanksAPictureNoLongerWantedAndReusesItsID() {
    let kitty = KittyPictureDrawing()
    let photo = RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 9, count: 12))
    func key(_ digit: Character) -> PictureKey {
      .thumbnail(BlobID(hex: String(repeating: digit, count: 32))!)
    }
    func draw(_ key: PictureKey) -> String {
      String(
        decoding: kitty.draw(
          key: key, source: PixelRect(x: 0, y: 0, width: 2, height: 2), column: 0, row: 0, columns: 1, rows: 1
        ) { .photo(photo) }, as: UTF8.self)
    }
    _ = kitty.beginFrame()
    XCTAssertTrue(draw(key("1")).contains(",i=1,"))
    XCTAssertTrue(draw(key("2")).contains(",i=2,"))
    _ = kitty.endFrame(keep: [])
    _ = kitty.beginFrame()
    XCTAssertTrue(draw(key("2")).contains("a=p,i=2,"))
    let ended = String(decoding: kitty.endFrame(keep: []), as: UTF8.self)
    XCTAssertEqual(ended, String(decoding: KittyGraphics.blank(id: 1), as: UTF8.self))
    XCTAssertFalse(ended.contains("a=d"))
    kitty.deletionsSent()
    _ = kitty.beginFrame()
    XCTAssertTrue(draw(key("3")).contains("a=t,t=d,f=100,s=2,v=2,i=1,"), "the blank's id taken")
  }
}
