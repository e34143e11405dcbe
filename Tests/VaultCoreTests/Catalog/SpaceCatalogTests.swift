import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// The catalog of random spaces (stills, MOVs and other photos, some of them Live Photos,
/// some imported twice, some in albums): every file finds its item, by id and by content
/// hash; each item is listed once with its MOV and its albums; a change of selection
/// derives nothing again.
final class SpaceCatalogTests: XCTestCase {
  let folders = BlobFolders(photo: "/space/Photo", thumb: "/space/Thumb")

  func testEveryFileFindsItsItemByIdAndByContentHash() {
    for seed in UInt64(0)..<200 {
      var random = SeededGenerator(seed: seed)
      let state = randomState(using: &random)
      let catalog = SpaceCatalog(entries: state.entries(), state: state, folders: folders)
      let items = itemPositions(catalog)
      XCTAssertEqual(items.count, catalog.count, "seed \(seed)")
      for (position, id) in catalog.entries.photoIDs.enumerated() {
        guard let found = catalog.item(withID: id) else {
          XCTFail("seed \(seed): \(id) finds no item")
          continue
        }
        let files = [found.record] + (found.motion.map { [$0] } ?? [])
        let imports = files.flatMap { [$0.id] + catalog.otherImports(of: $0.id).map(\.id) }
        XCTAssertTrue(imports.contains(id), "seed \(seed): the item of \(id) has no such file")
        XCTAssertTrue(items.contains(catalog.position(of: id)!), "seed \(seed): found an unlisted photo")
        let hash = catalog.entries.record(at: position).hash
        let byHash = catalog.item(withContentHash: hash)
        XCTAssertTrue(
          byHash.map { item in ([item.record] + (item.motion.map { [$0] } ?? [])).contains { $0.hash == hash }
          }
            ?? false, "seed \(seed): the hash of \(id) finds no item with that file")
      }
      for position in items {
        let item = catalog.item(at: position)
        XCTAssertEqual(
          item.albums, catalog.albums.filter { $0.photoIDs.contains(item.record.id) }.map(\.name))
        if let motion = item.motion {
          XCTAssertEqual(item.motionPhotoURL?.path, "/space/Photo/" + motion.id.hex, "seed \(seed)")
          XCTAssertEqual(item.motionThumbURL?.path, "/space/Thumb/" + motion.id.hex, "seed \(seed)")
        } else {
          XCTAssertNil(item.motionPhotoURL, "seed \(seed)")
        }
      }
    }
  }

  func testASelectionChangeSharesWhatIsDerived() {
    var random = SeededGenerator(seed: 7)
    let state = randomState(using: &random)
    let catalog = SpaceCatalog(entries: state.entries(), state: state, folders: folders)
    var entries = catalog.entries
    entries.setSelected(!entries.isSelected(at: 0), at: 0)
    let selected = catalog.withSelection(of: entries)
    XCTAssertTrue(selected.hasSameItems(as: catalog))
    XCTAssertNotEqual(selected.version, catalog.version, "a browser must see the selection changed")
    XCTAssertEqual(selected.item(at: 0).isSelected, !catalog.item(at: 0).isSelected)
    let rebuilt = SpaceCatalog(entries: entries, state: state, folders: folders)
    XCTAssertFalse(rebuilt.hasSameItems(as: catalog))
  }

  func testAnEmptySpaceDerivesNothing() {
    let catalog = SpaceCatalog(entries: [], state: SpaceState(), folders: folders)
    XCTAssertEqual(catalog.count, 0)
    XCTAssertTrue(catalog.listsEveryPhoto)
    XCTAssertNil(catalog.item(withID: .random()))
  }

  /// The positions of the items, found by asking each photo's id.
  func itemPositions(_ catalog: SpaceCatalog) -> Set<Int> {
    Set(catalog.onlyItems(Array(catalog.entries.indices)))
  }

  /// Up to 12 photos of a pool of 6 files (so some are imported twice), of stills, MOVs and
  /// PNGs, some carrying one of two Live Photo identifiers, some in one of two albums.
  func randomState(using random: inout SeededGenerator) -> SpaceState {
    let pool: [(name: String, format: ImageFormat, hash: String)] = (0..<6).map { index in
      let format = [ImageFormat.jpeg, .heic, .mov, .png][index % 4]
      let hash = hexString((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
      return ("IMG_\(index % 2).\(format == .mov ? "MOV" : "JPG")", format, hash)
    }
    var state = SpaceState()
    let albums = [AlbumID.random(), AlbumID.random()]
    state.apply(.albumNamed(albums[0], name: "One", stamp: 1))
    state.apply(.albumNamed(albums[1], name: "Two", stamp: 1))
    for order in 0..<Int.random(in: 0...12, using: &random) {
      let file = pool.randomElement(using: &random)!
      let record = PhotoRecord(
        id: .random(), name: file.name, bytes: 10, format: file.format, width: 4, height: 3, orientation: 1,
        modifiedAt: Timestamp(seconds: 1), importedAt: Timestamp(seconds: 2), contentHash: file.hash)
      state.apply(.added(record, order: Int64(order + 1)))
      if Bool.random(using: &random) {
        state.apply(.liveIdentifier(record.id, identifier: ["A", "B"].randomElement(using: &random)!))
      }
      if Int.random(in: 0..<3, using: &random) == 0 {
        state.apply(
          .albumMembership(albums.randomElement(using: &random)!, photo: record.id, member: true, stamp: 2))
      }
    }
    return state
  }
}
