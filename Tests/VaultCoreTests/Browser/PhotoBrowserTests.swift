import Foundation
import Synchronization
import XCTest

@testable import VaultCore

/// The browser over closures of its own: what it asks its data source for, and in which order.
final class PhotoBrowserTests: XCTestCase {
  func model(_ number: Int, selected: Bool = false) -> PhotoModel {
    let id = String(format: "%032x", number)
    let record = PhotoRecord(
      id: BlobID(hex: id)!, name: "IMG_\(number).jpg", bytes: 100, format: .jpeg, width: 4, height: 3,
      orientation: 1,
      modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0), contentHash: id)
    return PhotoModel(isSelected: selected, record: record)
  }

  /// Counts what the browser asks its data source for.
  final class Counter {
    var value = 0
  }

  /// A hand-made data source: photos read live, and loaders and requests that tests set
  /// and watch; `events` records the requests and reloads in order.
  final class Source {
    var photos: () -> [PhotoModel]
    let asked: Counter
    var events: [String] = []
    /// The loaders', which a browser may call from any thread.
    private let loaded = Loaded()
    var thumbnail: @Sendable (PhotoRecord) throws -> [UInt8] {
      get { loaded.thumbnail.withLock { $0 } }
      set { loaded.thumbnail.withLock { $0 = newValue } }
    }
    var originals: [BlobID: [UInt8]] {
      get { loaded.originals.withLock { $0 } }
      set { loaded.originals.withLock { $0 = newValue } }
    }
    var delete: ([PhotoModel]) throws -> Void = { _ in }
    var select: ([(index: Int, selected: Bool)]) throws -> Void = { _ in }
    var albums: [String: Set<BlobID>] = [:]

    init(photos: @escaping () -> [PhotoModel], asked: Counter) {
      self.photos = photos
      self.asked = asked
    }

    var dataSource: PhotoDataSource {
      PhotoDataSource(
        numberOfPhotos: { self.photos().count },
        photoAtIndex: { index in
          self.asked.value += 1
          return self.photos()[index]
        },
        reload: { self.events.append("reload") },
        thumbnail: { [loaded] in try loaded.thumbnail.withLock { $0 }($0) },
        original: { [loaded] record, content in
          guard let bytes = loaded.originals.withLock({ $0[record.id] }) else {
            throw VaultError.damagedBlob(what: record.name, reason: "missing")
          }
          // In two chunks, as a blob gives them.
          try bytes.withUnsafeBytes { all in
            try content(UnsafeRawBufferPointer(rebasing: all[..<(all.count / 2)]))
            try content(UnsafeRawBufferPointer(rebasing: all[(all.count / 2)...]))
          }
        },
        selectionRequest: { try self.select($0) },
        deletionRequest: { doomed in
          self.events.append("delete " + doomed.map(\.record.name).joined(separator: " "))
          try self.delete(doomed)
        },
        albumAdditionRequest: { name, photos, creating in
          self.events.append("add to \(name) " + photos.map(\.record.name).joined(separator: " "))
          if self.albums[name] == nil && !creating { throw VaultError.noSuchAlbum(name) }
          let before = self.albums[name]?.count ?? 0
          self.albums[name, default: []].formUnion(photos.map(\.record.id))
          return AlbumAddition(added: self.albums[name]!.count - before, created: before == 0, name: name)
        },
        albumRemovalRequest: { name, photos in
          self.events.append("remove from \(name) " + photos.map(\.record.name).joined(separator: " "))
          let before = self.albums[name]?.count ?? 0
          self.albums[name]?.subtract(photos.map(\.record.id))
          return before - (self.albums[name]?.count ?? 0)
        },
        detailsRequest: { self.events.append("details \($0.count)") })
    }
  }

  /// What a `Source`'s loaders give, under locks.
  final class Loaded: Sendable {
    let thumbnail = Mutex<@Sendable (PhotoRecord) throws -> [UInt8]>({ _ in
      throw VaultError.invalidArgument("no thumbnail")
    })
    let originals = Mutex<[BlobID: [UInt8]]>([:])
  }

  /// A browser over `photos` (read live), counting the photos it asks for in `asked`.
  func browser(over photos: @escaping () -> [PhotoModel], asked: Counter = Counter()) -> PhotoBrowser {
    source(over: photos, asked: asked).browser
  }

  /// The same, with its data source to set and watch.
  func source(over photos: @escaping () -> [PhotoModel], asked: Counter = Counter(), perRow: Int = 4) -> (
    source: Source, browser: PhotoBrowser
  ) {
    let source = Source(photos: photos, asked: asked)
    return (source, PhotoBrowser(dataSource: source.dataSource, numberOfPhotosPerRow: perRow))
  }

  func testDefaultsOfTheOptionalBlocks() {
    let photos = (1...3).map { model($0) }
    let browser = browser(over: { photos })
    XCTAssertNotEqual(browser.listRevision(), browser.listRevision(), "unknown: it may always have changed")
    XCTAssertTrue(browser.detailsAreKnown(photos[0].record))
    XCTAssertEqual(browser.index(of: photos[2].record.id), 2, "found through photoAtIndex")
    XCTAssertNil(browser.photo(at: 3))
  }

  func testRowsHoldNumberOfPhotosPerRow() {
    let photos = (1...7).map { model($0) }
    let browser = browser(over: { photos })
    browser.numberOfPhotosPerRow = 3
    let all = browser.listed(selectedOnly: false, from: nil, count: nil)
    XCTAssertEqual(browser.rows(of: all).map { $0.map(\.index) }, [[0, 1, 2], [3, 4, 5], [6]])
    XCTAssertEqual(
      browser.rows(of: browser.listed(selectedOnly: false, from: 3, count: 4)).map { $0.map(\.index) },
      [[2, 3, 4], [5]], "rows of a listing keep the photos' own indexes")
    browser.numberOfPhotosPerRow = 7
    XCTAssertEqual(browser.rows(of: all).count, 1)
  }

  func testListingFiltersKeepNumbersAndLookOnlyAtWhatTheyNeed() {
    let photos = (1...10).map { model($0, selected: [2, 5, 6, 9].contains($0)) }
    let asked = Counter()
    let browser = browser(over: { photos }, asked: asked)
    func indexes(_ selectedOnly: Bool, _ from: Int?, _ count: Int?) -> [Int] {
      browser.listed(selectedOnly: selectedOnly, from: from, count: count).map(\.index)
    }
    XCTAssertEqual(indexes(false, nil, nil), Array(0..<10))
    XCTAssertEqual(indexes(true, nil, nil), [1, 4, 5, 8])
    XCTAssertEqual(
      indexes(true, 5, nil), [4, 5, 8], "--from is a photo number, not a place among the selected")
    XCTAssertEqual(indexes(true, 3, 2), [4, 5])
    XCTAssertEqual(indexes(false, 9, 5), [8, 9])
    XCTAssertEqual(indexes(false, 11, nil), [])
    asked.value = 0
    XCTAssertEqual(indexes(false, 4, 2), [3, 4])
    XCTAssertEqual(asked.value, 2, "a page asks only for its own photos")
  }

  func testChoicesByNumbersRangesIdsSelectionOrAll() throws {
    let photos = (1...8).map { model($0, selected: $0 != 2 && $0 < 5) }
    let asked = Counter()
    let browser = browser(over: { photos }, asked: asked)
    func chosen(_ terms: [String]) throws -> [Int] {
      try browser.photos(chosenBy: .photos(PhotoSelector.parse(terms)), action: "x").map(\.index)
    }
    XCTAssertEqual(
      try browser.photos(chosenBy: .selected, action: "exporting").map(\.photo.record.name),
      ["IMG_1.jpg", "IMG_3.jpg", "IMG_4.jpg"])
    XCTAssertEqual(try browser.photos(chosenBy: .all, action: "exporting").map(\.index), Array(0..<8))
    XCTAssertEqual(
      try chosen(["3", "6-7", "2-3,8"]), [2, 5, 6, 1, 7], "in the order given, without repeats")
    XCTAssertEqual(try chosen(["7-", String(format: "%032x", 1)]), [6, 7, 0])
    XCTAssertEqual(try chosen([String(format: "%032x", 5)]), [4], "an id")
    asked.value = 0
    XCTAssertEqual(try chosen(["2", "4-5"]), [1, 3, 4])
    XCTAssertEqual(asked.value, 3, "numbers need no other photo's id")
    XCTAssertThrowsError(try chosen(["9"])) {
      XCTAssertEqual($0 as? VaultError, .indexOutOfRange(index: 9, count: 8))
    }
    XCTAssertThrowsError(try chosen(["abcdef12"])) {
      XCTAssertEqual($0 as? VaultError, .ambiguousPhotoID(prefix: "abcdef12", matches: 0))
    }
    let none = (1...3).map { model($0) }
    XCTAssertThrowsError(try self.browser(over: { none }).photos(chosenBy: .selected, action: "deleting")) {
      XCTAssertEqual($0 as? VaultError, .nothingSelected(action: "deleting"))
    }
    XCTAssertThrowsError(try self.browser(over: { [] }).photos(chosenBy: .all, action: "exporting")) {
      XCTAssertEqual($0 as? VaultError, .emptySpace(action: "exporting"))
    }
  }

  func testDeleteRunsTheBatchThenTheReload() throws {
    var photos = (1...5).map { model($0, selected: $0 == 2 || $0 == 4) }
    let (source, browser) = self.source(over: { photos })
    source.delete = { doomed in photos.removeAll { photo in doomed.contains(photo) } }
    try browser.delete(browser.photos(chosenBy: .selected, action: "deleting").map(\.photo))
    XCTAssertEqual(source.events, ["delete IMG_2.jpg IMG_4.jpg", "reload"])
    XCTAssertEqual(browser.count, 3)

    source.delete = { _ in throw VaultError.io(path: "Photo", reason: "read-only") }
    XCTAssertThrowsError(try browser.delete([photos[0]]))
    XCTAssertEqual(source.events.count, 3, "no reload after a batch that failed")
  }

  /// `delete --only`: a deletion request that names one half of each Live Photo alone;
  /// a choice with a photo that is not a Live Photo deletes nothing.
  func testDeletingOneHalfOfLivePhotosNamesThatHalfAlone() throws {
    var live = model(1)
    live.motion = model(2).record
    let photos = [live, model(3)]
    let (source, browser) = self.source(over: { photos })
    var doomed: [[PhotoModel]] = []
    source.delete = { doomed.append($0) }
    try browser.delete(.motion, of: [(0, live)])
    try browser.delete(.still, of: [(0, live)])
    XCTAssertEqual(source.events, ["delete IMG_2.jpg", "reload", "delete IMG_1.jpg", "reload"])
    XCTAssertEqual(doomed.flatMap { $0.map(\.motion) }, [nil, nil], "the other half is not named")
    XCTAssertThrowsError(try browser.delete(.motion, of: [(0, live), (1, photos[1])])) { error in
      XCTAssertTrue("\(error)".contains("photo 2 'IMG_3.jpg' is not a live photo"), "\(error)")
    }
    XCTAssertEqual(source.events.count, 4, "nothing asked for when a photo is not a live photo")
  }

  func testSelectionChangesAreOneRequestThenTheReload() throws {
    var photos = (1...4).map { model($0, selected: $0 == 2) }
    let (source, browser) = self.source(over: { photos })
    var requests: [[Int: Bool]] = []
    source.select = { changes in
      requests.append(Dictionary(uniqueKeysWithValues: changes.map { ($0.index, $0.selected) }))
      for change in changes { photos[change.index].isSelected = change.selected }
    }
    try browser.setSelected([0, 2], true)
    XCTAssertEqual(requests, [[0: true, 2: true]])
    XCTAssertEqual(source.events, ["reload"])
    try browser.invertSelection()
    XCTAssertEqual(requests.last, [0: false, 1: false, 2: false, 3: true], "inverted in one change")
    XCTAssertEqual(browser.selectedPhotos().map(\.index), [3])
    XCTAssertEqual(source.events, ["reload", "reload"])
  }

  func testTheCountIsReadFromTheDataSourceEveryTime() throws {
    var photos = (1...5).map { model($0) }
    let browser = browser(over: { photos })
    XCTAssertEqual(browser.count, 5)
    // Changed behind the browser's back, with no reload: nothing it kept can be stale.
    photos.removeFirst(2)
    XCTAssertEqual(browser.count, 3)
    XCTAssertEqual(
      browser.listed(selectedOnly: false, from: nil, count: nil).map(\.photo.record.name).first, "IMG_3.jpg")
    photos.append(model(9))
    XCTAssertEqual(try browser.photos(chosenBy: .all, action: "x").count, 4)
  }

  func testLoadersAreAskedByThePhotosRecord() throws {
    let photos = (1...3).map { model($0) }
    let (source, browser) = self.source(over: { photos })
    let jpeg = try JPEGEncoder.encode(TestImages.photoLike(width: 64, height: 32), quality: 80)
    let thumbnailsAsked = Mutex<[String]>([])
    source.thumbnail = { record in
      thumbnailsAsked.withLock { $0.append(record.name) }
      if record.name == "IMG_2.jpg" { throw VaultError.damagedBlob(what: "thumbnail 2", reason: "bad") }
      return jpeg
    }
    let image = try browser.thumbnailImage(at: 2, minimumSize: PixelSize(width: 16, height: 8))
    XCTAssertEqual([image.width, image.height], [16, 8], "the DCT scale of 1/4 is enough")
    XCTAssertThrowsError(try browser.thumbnailImage(at: 1, minimumSize: PixelSize(width: 1, height: 1)))
    XCTAssertEqual(thumbnailsAsked.withLock { $0 }, ["IMG_3.jpg", "IMG_2.jpg"])
    source.thumbnail = { _ in [0xFF, 0xD8, 0xFF, 0] }
    XCTAssertThrowsError(try browser.thumbnailImage(at: 0, minimumSize: PixelSize(width: 1, height: 1))) {
      XCTAssertTrue("\($0)".hasPrefix("'thumbnail of 'IMG_1.jpg'': cannot decode image"), "\($0)")
    }
  }
}
