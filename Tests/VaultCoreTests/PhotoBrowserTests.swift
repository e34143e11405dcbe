import Foundation
import XCTest

@testable import VaultCore

final class PhotoBrowserTests: XCTestCase {
  func model(_ number: Int, selected: Bool = false) -> PhotoModel {
    let id = String(format: "%032x", number)
    let record = PhotoRecord(
      id: BlobID(hex: id)!, name: "IMG_\(number).jpg", bytes: 100, format: .jpeg, width: 4, height: 3,
      orientation: 1,
      modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0), contentHash: id)
    return PhotoModel(
      photoURL: URL(fileURLWithPath: "/v/Photo/\(id)"), thumbURL: URL(fileURLWithPath: "/v/Thumb/\(id)"),
      isSelected: selected, record: record)
  }

  func testNothingWithoutBothDataSourceClosures() {
    let browser = PhotoBrowser(numberOfPhotosPerRow: 3)
    browser.numberOfPhotos = { 5 }
    XCTAssertFalse(browser.isReady)
    XCTAssertEqual(browser.count, 0)
    XCTAssertTrue(browser.rows().isEmpty)
  }

  func testRowsHoldNumberOfPhotosPerRow() {
    let photos = (1...7).map { model($0) }
    let browser = PhotoBrowser(numberOfPhotosPerRow: 3)
    browser.numberOfPhotos = { photos.count }
    browser.photoAtIndex = { photos[$0] }
    XCTAssertEqual(browser.rows().map { $0.map(\.index) }, [[0, 1, 2], [3, 4, 5], [6]])
    browser.numberOfPhotosPerRow = 7
    XCTAssertEqual(browser.rows().count, 1)
  }

  func testDeleteSelectedDeletesThenRequestsReload() throws {
    var photos = (1...5).map { model($0, selected: $0 == 2 || $0 == 4) }
    let browser = PhotoBrowser()
    var reloads = 0
    var deleted: [String] = []
    browser.numberOfPhotos = { photos.count }
    browser.photoAtIndex = { photos[$0] }
    browser.reloadRequest = { reloads += 1 }
    try browser.deleteSelected { doomed in
      deleted = doomed.map(\.record.name)
      photos.removeAll { $0.isSelected }
    }
    XCTAssertEqual(deleted, ["IMG_2.jpg", "IMG_4.jpg"])
    XCTAssertEqual(reloads, 1)
    XCTAssertEqual(browser.count, 3)
    XCTAssertThrowsError(try browser.deleteSelected { _ in XCTFail("nothing is selected") }) { error in
      XCTAssertEqual(error as? VaultError, .nothingSelected(action: "deleting"))
    }
    XCTAssertEqual(reloads, 1)
  }

  func testChoicesWalkThePhotosInOrder() throws {
    let photos = (1...4).map { model($0, selected: $0 != 2) }
    let browser = PhotoBrowser()
    browser.numberOfPhotos = { photos.count }
    browser.photoAtIndex = { photos[$0] }
    XCTAssertEqual(
      try browser.photos(chosenBy: .selected, action: "exporting").map(\.photo.record.name),
      ["IMG_1.jpg", "IMG_3.jpg", "IMG_4.jpg"])
    XCTAssertEqual(try browser.photos(chosenBy: .all, action: "exporting").map(\.index), [0, 1, 2, 3])
    XCTAssertEqual(
      try browser.photos(
        chosenBy: .photos(PhotoSelector.parse(["3-", String(format: "%032x", 1)])), action: "x"
      )
      .map(\.index), [2, 3, 0])
    let empty = PhotoBrowser()
    empty.numberOfPhotos = { 0 }
    empty.photoAtIndex = { photos[$0] }
    XCTAssertThrowsError(try empty.photos(chosenBy: .all, action: "exporting")) {
      XCTAssertEqual($0 as? VaultError, .emptySpace(action: "exporting"))
    }
  }

  func testTheCountIsAlwaysTheDataSourcesOwn() throws {
    var photos = (1...5).map { model($0) }
    let browser = PhotoBrowser()
    browser.numberOfPhotos = { photos.count }
    browser.photoAtIndex = { photos[$0] }
    XCTAssertEqual(browser.count, 5)
    try browser.delete([photos[0]]) { _ in photos.removeFirst() }
    XCTAssertEqual(browser.count, 4)
  }
}
