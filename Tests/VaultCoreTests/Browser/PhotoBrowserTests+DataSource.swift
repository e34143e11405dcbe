import Foundation
import XCTest

@testable import VaultCore

/// Export, album changes, originals and counts go through the browser's data source: a
/// browser over a hand-made one exports, puts in albums and counts exactly what it gives.
extension PhotoBrowserTests {
  private func photo(_ number: Int, in folder: String, selected: Bool = false) -> PhotoModel {
    let record = model(number).record
    return PhotoModel(
      record: record, photoURL: URL(fileURLWithPath: folder + "/p\(number)"),
      thumbURL: URL(fileURLWithPath: folder + "/t\(number)"), isSelected: selected)
  }

  func testExportWritesWhatTheLoadersGive() throws {
    let folder = try makeTemporaryFolder(self)
    let models = (1...3).map { photo($0, in: folder) }
    let (source, browser) = self.source(over: { models })
    for model in models {
      source.originals[model.record.id] = Array("original of \(model.record.name)".utf8)
    }
    source.thumbnail = { Array("thumbnail of \($0.name)".utf8) }
    let target = folder + "/out"
    try ExportTarget.make(target)
    let exporter = PhotoExporter(browser: browser, parallelism: 2)
    var events: [String] = []
    let result = exporter.export(models, to: target, thumbnails: false) { event in
      if case .exported(let name, _) = event { events.append(name) }
    }
    XCTAssertEqual(result.exported, 3)
    XCTAssertEqual(events, ["IMG_1.jpg", "IMG_2.jpg", "IMG_3.jpg"])
    XCTAssertEqual(
      String(decoding: try fileBytes(target + "/IMG_2.jpg"), as: UTF8.self), "original of IMG_2.jpg")

    exporter.export([models[0]], to: target, thumbnails: true) { _ in }
    XCTAssertEqual(
      String(decoding: try fileBytes(target + "/IMG_1 (1).jpg"), as: UTF8.self), "thumbnail of IMG_1.jpg")

    source.originals[models[2].record.id] = nil
    var failed: [String] = []
    exporter.export([models[2]], to: target, thumbnails: false) { event in
      if case .failed(let name, _) = event { failed.append(name) }
    }
    XCTAssertEqual(failed, ["IMG_3.jpg"], "a loader that fails fails its photo")
  }

  func testAlbumChangesAreTheDataSourcesRequests() throws {
    let folder = try makeTemporaryFolder(self)
    let models = (1...3).map { photo($0, in: folder) }
    let (source, browser) = self.source(over: { models })
    XCTAssertThrowsError(try browser.addToAlbum("Trip", [models[0]], creating: false)) {
      XCTAssertEqual($0 as? VaultError, .noSuchAlbum("Trip"))
    }
    let addition = try browser.addToAlbum("Trip", [models[0], models[2]])
    XCTAssertEqual(addition, AlbumAddition(added: 2, created: true, name: "Trip"))
    XCTAssertEqual(try browser.removeFromAlbum("Trip", [models[2], models[1]]), 1)
    XCTAssertEqual(
      source.events,
      [
        "add to Trip IMG_1.jpg", "add to Trip IMG_1.jpg IMG_3.jpg", "reload",
        "remove from Trip IMG_3.jpg IMG_2.jpg", "reload",
      ])
  }

  func testOriginalsAreCollectedFromTheLoaderAndCheckedAgainstTheirSize() throws {
    let folder = try makeTemporaryFolder(self)
    let models = [photo(1, in: folder)]
    let (source, browser) = self.source(over: { models })
    let bytes = (0..<100).map { UInt8($0) }
    source.originals[models[0].record.id] = bytes
    let original = try browser.originalBytes(of: models[0].record)
    XCTAssertEqual(original.withUnsafeBytes { Array($0) }, bytes)
    source.originals[models[0].record.id] = bytes + [0]
    XCTAssertThrowsError(try browser.originalBytes(of: models[0].record)) {
      XCTAssertTrue("\($0)".contains("holds more than the 100 bytes its record says"), "\($0)")
    }
  }

  func testTheSummaryCountsTheModelsAndTheirBlobs() throws {
    let folder = try makeTemporaryFolder(self)
    let models = (1...3).map { photo($0, in: folder, selected: $0 == 2) }
    try writeBytes([UInt8](repeating: 1, count: 40), to: folder + "/p1")
    try writeBytes([UInt8](repeating: 1, count: 7), to: folder + "/t1")
    try writeBytes([UInt8](repeating: 1, count: 50), to: folder + "/p2")
    let browser = browser(over: { models })
    XCTAssertEqual(
      browser.summary(), SpaceSummary(photos: 3, selected: 1, originalBytes: 300, storedBytes: 97),
      "a missing blob counts nothing")
  }

  func testSelectedPhotosAndIdsAreFoundWithoutAModelOfEachPhotoWhenTheSourceTellsThem() {
    let models = (1...10).map { model($0, selected: $0 == 3 || $0 == 8) }
    let asked = Counter()
    var dataSource = Source(photos: { models }, asked: asked).dataSource
    dataSource.selectedIndexes = { models.indices.filter { models[$0].isSelected } }
    dataSource.idAtIndex = { models[$0].record.id }
    let browser = PhotoBrowser(dataSource: dataSource)
    XCTAssertEqual(browser.selectedPhotos().map(\.index), [2, 7])
    XCTAssertEqual(asked.value, 2, "models only of the selected photos")
    XCTAssertEqual(browser.selectedIndexes(), [2, 7])
    XCTAssertEqual(browser.id(at: 7), models[7].record.id)
    XCTAssertEqual(asked.value, 2, "indexes and ids without models")
    XCTAssertEqual(browser.listed(selectedOnly: true, from: 4, count: 1).map(\.index), [7])
    XCTAssertEqual(browser.listed(selectedOnly: false, from: 9, count: nil).map(\.index), [8, 9])
  }
}
