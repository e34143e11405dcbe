import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultMount

/// What a mount shows, built from photos alone (no /dev/fuse): every photo under
/// `Photos/`, each album's under `Albums/`, `Dates/<year>/<month>/` in the zone given,
/// `Selected/`; names numbered as export numbers them; a Live Photo's still and MOV.
final class MountTreeTests: XCTestCase {
  let utc = TimeZone(identifier: "UTC")!
  /// 2024-06-15 12:00 UTC.
  let june2024: Int64 = 1_718_452_800

  func photo(
    _ name: String, _ number: Int, imported: Int64? = nil, selected: Bool = false, albums: [String] = [],
    format: ImageFormat = .jpeg
  ) -> PhotoModel {
    let id = String(format: "%032x", number)
    let record = PhotoRecord(
      id: BlobID(hex: id)!, name: name, bytes: 100, format: format, width: 4, height: 3, orientation: 1,
      modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: imported ?? june2024), contentHash: id
    )
    return PhotoModel(isSelected: selected, record: record, albums: albums)
  }

  func names(_ tree: MountTree, _ path: String, file: StaticString = #filePath, line: UInt = #line)
    -> [String]
  {
    guard case .folder(let number)? = tree.node(at: path) else {
      XCTFail("no folder \(path)", file: file, line: line)
      return []
    }
    return tree.folders[number].names
  }

  func record(_ tree: MountTree, _ path: String) -> PhotoRecord? {
    guard case .file(let number)? = tree.node(at: path) else { return nil }
    return tree.files[number].record
  }

  func testEveryFolderShowsItsPhotosUnderTheirExportNames() {
    var live = photo("IMG_0001.JPG", 1, albums: ["Trip"])
    live.motion = photo("IMG_0001.MOV", 2, format: .mov).record
    let photos = [
      live, photo("IMG.jpg", 3, selected: true, albums: ["Trip", "Best"]), photo("IMG.jpg", 4),
      photo("a/b\u{1B}.png", 5),
    ]
    let tree = MountTree(photos: photos, zone: utc)
    XCTAssertEqual(names(tree, "/"), ["Photos", "Albums", "Dates", "Selected", "Recently Deleted"])
    XCTAssertEqual(
      names(tree, "/Photos"), ["IMG_0001.JPG", "IMG_0001.MOV", "IMG.jpg", "IMG (1).jpg", "a_b_.png"])
    XCTAssertEqual(names(tree, "/Albums"), ["Best", "Trip"])
    XCTAssertEqual(names(tree, "/Albums/Trip"), ["IMG_0001.JPG", "IMG_0001.MOV", "IMG.jpg"])
    XCTAssertEqual(names(tree, "/Albums/Best"), ["IMG.jpg"])
    XCTAssertEqual(names(tree, "/Dates"), ["2024"])
    XCTAssertEqual(names(tree, "/Dates/2024/06").count, 5)
    XCTAssertEqual(names(tree, "/Selected"), ["IMG.jpg"])
    XCTAssertEqual(record(tree, "/Photos/IMG_0001.MOV")?.name, "IMG_0001.MOV")
    XCTAssertEqual(record(tree, "/Photos/IMG (1).jpg")?.id, photos[2].record.id)
    XCTAssertEqual(record(tree, "/Selected/IMG.jpg")?.id, photos[1].record.id)
    XCTAssertEqual(tree.files.count, 5, "a photo shown in several folders is one file")
  }

  func testDatesAreTheLocalDatesOfTheZoneGiven() {
    // 2023-12-31 23:30 UTC: still 2023 in UTC, already January 2024 an hour east.
    let photos = [photo("late.jpg", 1, imported: 1_704_065_400), photo("june.jpg", 2)]
    let east = MountTree(photos: photos, zone: TimeZone(secondsFromGMT: 3600)!)
    XCTAssertEqual(names(east, "/Dates"), ["2024"])
    XCTAssertEqual(names(east, "/Dates/2024"), ["01", "06"])
    let inUTC = MountTree(photos: photos, zone: utc)
    XCTAssertEqual(names(inUTC, "/Dates"), ["2023", "2024"])
    XCTAssertEqual(names(inUTC, "/Dates/2023/12"), ["late.jpg"])
  }

  func testAnEmptySpaceShowsItsFourFoldersEmpty() {
    let tree = MountTree(photos: [], zone: utc)
    for folder in ["/Photos", "/Albums", "/Dates", "/Selected"] {
      XCTAssertEqual(names(tree, folder), [], folder)
    }
  }

  /// The names that changed, as paths ("/Photos/IMG.jpg").
  func changed(_ older: MountTree, _ newer: MountTree) -> Set<String> {
    Set(
      older.entriesChanged(in: newer).map { folder, name in
        guard case .folder(let number)? = older.nodesByInode[folder] else { return "?" + name }
        return (older.folders[number].path == "/" ? "" : older.folders[number].path) + "/" + name
      })
  }

  func testChangedNamesAreThoseThatShowAnotherPhotoOrNothing() {
    let first = photo("IMG.jpg", 1, albums: ["Trip"])
    let second = photo("IMG.jpg", 2)
    let older = MountTree(photos: [first, second], zone: utc)
    // The first is deleted: the second takes its name, "IMG (1).jpg" shows nothing, and the
    // album's folder is gone (one name in Albums/, whatever it held).
    let newer = MountTree(photos: [second], zone: utc, inodes: older.inodes)
    XCTAssertEqual(
      changed(older, newer),
      [
        "/Photos/IMG.jpg", "/Photos/IMG (1).jpg", "/Albums/Trip", "/Dates/2024/06/IMG.jpg",
        "/Dates/2024/06/IMG (1).jpg",
      ])
    XCTAssertEqual(changed(older, MountTree(photos: [first, second], zone: utc, inodes: older.inodes)), [])
  }

  /// A photo is one inode wherever it shows (its link count the folders showing it), and
  /// keeps it, as a folder keeps its own, in a tree built on the numbers of the one before;
  /// inode numbers are never given twice.
  func testInodesStayWithTheirPhotosAndFoldersFromTreeToTree() {
    let first = photo("IMG.jpg", 1, selected: true, albums: ["Trip"])
    let second = photo("IMG.jpg", 2)
    let older = MountTree(photos: [first, second], zone: utc)
    let newer = MountTree(photos: [second, photo("new.jpg", 3)], zone: utc, inodes: older.inodes)
    func inode(_ tree: MountTree, _ path: String) -> UInt64? {
      tree.node(at: path).map { tree.inode(of: $0) }
    }
    XCTAssertEqual(inode(older, "/"), 1)
    XCTAssertEqual(inode(older, "/Photos/IMG.jpg"), inode(older, "/Albums/Trip/IMG.jpg"))
    XCTAssertEqual(inode(older, "/Photos/IMG.jpg"), inode(older, "/Selected/IMG.jpg"))
    guard case .file(let number)? = older.node(at: "/Photos/IMG.jpg") else { return XCTFail("no file") }
    XCTAssertEqual(older.files[number].links, 4, "Photos, Albums/Trip, its month and Selected")
    XCTAssertEqual(inode(newer, "/Photos/IMG.jpg"), inode(older, "/Photos/IMG (1).jpg"))
    XCTAssertEqual(inode(newer, "/Dates/2024/06"), inode(older, "/Dates/2024/06"))
    let olderInodes = Set(older.nodesByInode.keys)
    let added = Set(newer.nodesByInode.keys).subtracting(olderInodes)
    XCTAssertEqual(added.count, 1, "only new.jpg is new")
    XCTAssertTrue(added.allSatisfy { $0 > olderInodes.max()! })
    XCTAssertEqual(older.nodesByInode.count, older.files.count + older.folders.count)
  }

  /// Every name a folder lists is found by its bytes, names that Swift's String equality
  /// holds equal (NFC and NFD spellings, random in number and order) included.
  func testEveryListedNameIsFoundByItsBytes() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    let spellings = ["Caf\u{E9}.jpg", "Cafe\u{301}.jpg", "caf\u{E9}.jpg", "IMG.jpg"]
    let photos = (0..<Int.random(in: 2...12, using: &random)).map { index in
      photo(spellings.randomElement(using: &random)!, index + 1, albums: ["Caf\u{E9}", "Cafe\u{301}"])
    }
    let tree = MountTree(photos: photos, zone: utc)
    for (number, folder) in tree.folders.enumerated() {
      for (name, node) in zip(folder.names, folder.nodes) {
        XCTAssertEqual(tree.child(name, of: number), node, "\(folder.path)/\(name), seed \(seed)")
      }
    }
  }
}
