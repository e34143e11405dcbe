import Foundation
import Synchronization
import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// `PhotoBrowser.gridRowImage`: one row of `list --per-row` and the viewer's grid.
final class GridRowImageTests: XCTestCase {
  func model(_ number: Int, selected: Bool = false) -> PhotoModel {
    let id = String(format: "%032x", number)
    let record = PhotoRecord(
      id: BlobID(hex: id)!, name: "IMG_\(number).jpg", bytes: 100, format: .jpeg, width: 4, height: 3,
      orientation: 1,
      modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0), contentHash: id)
    return PhotoModel(isSelected: selected, record: record)
  }

  /// A browser over `photos`, three a row, whose thumbnails `thumbnail` gives; it changes
  /// nothing.
  func browser(over photos: [PhotoModel], thumbnail: @escaping @Sendable (PhotoRecord) throws -> [UInt8])
    -> PhotoBrowser
  {
    let nothing = VaultError.invalidArgument("this browser changes nothing")
    let source = PhotoDataSource(
      numberOfPhotos: { photos.count }, photoAtIndex: { photos[$0] }, reload: {}, thumbnail: thumbnail,
      original: { _, _ in throw nothing }, selectionRequest: { _ in throw nothing },
      deletionRequest: { _ in throw nothing }, albumAdditionRequest: { _, _, _ in throw nothing },
      albumRemovalRequest: { _, _ in throw nothing }, detailsRequest: { _ in })
    return PhotoBrowser(dataSource: source, numberOfPhotosPerRow: 3)
  }

  func testAGridRowDecryptsItsOwnThumbnailsAndReportsTheUnreadable() throws {
    let photos = (1...6).map { model($0, selected: $0 == 5) }
    let jpeg = try JPEGEncoder.encode(
      RGBImage(width: 8, height: 8, pixels: [UInt8](repeating: 200, count: 8 * 8 * 3)), quality: 90)
    // A data source's loaders may be called on any thread.
    let asked = Mutex<[Int]>([])
    let browser = browser(over: photos) { record in
      let index = photos.firstIndex { $0.record.id == record.id }!
      asked.withLock { $0.append(index) }
      if index == 4 { throw VaultError.damagedBlob(what: "thumbnail 5", reason: "bad") }
      return jpeg
    }
    let layout = try GridLayout(columns: 40, perRow: 3)
    let rows = browser.rows(of: browser.listed(selectedOnly: false, from: nil, count: nil))
    var failures: [Int] = []
    let image = browser.gridRowImage(
      rows[1], layout: layout, cellRows: 3, characterWidth: 2, characterHeight: 4
    ) {
      index, _ in failures.append(index)
    }
    XCTAssertEqual(asked.withLock { $0 }, [3, 4, 5], "only this row's thumbnails")
    XCTAssertEqual(failures, [4])
    XCTAssertEqual([image.width, image.height], [layout.rowWidth * 2, 12])
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
      Array(image.pixels[((y * image.width + x) * 4)..<((y * image.width + x) * 4 + 4)])
    }
    let step = (layout.cellWidth + layout.gutter) * 2
    XCTAssertEqual(pixel(4, 6)[0], 200, "a thumbnail")
    XCTAssertEqual(pixel(step, 0), [0x2F, 0x9B, 0xFF, 255], "the selected, unreadable one is framed…")
    XCTAssertEqual(pixel(step + 4, 6), [0x1C, 0x1C, 0x1C, 255], "…and gray, dimmed")
  }
}
