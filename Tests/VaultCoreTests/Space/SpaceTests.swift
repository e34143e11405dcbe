import Foundation
import XCTest

@testable import VaultCore

final class SpaceTests: XCTestCase {
  var folder = ""
  var vault: Vault!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    try vault.createSpace(password: password("decoy"))
  }

  func listing(_ path: String) throws -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: path)
    return (enumerator?.allObjects as? [String] ?? []).sorted()
  }

  func importFixtures(into space: Space, _ names: [String]) throws -> [ImportEvent] {
    var events: [ImportEvent] = []
    try PhotoImporter().importFiles(names.map { fixturesPath + "/" + $0 }, into: space) { event, _ in
      events.append(event)
    }
    return events
  }

  func testSpacesAreSeparateAndAWrongPasswordOpensNothing() throws {
    let first = try vault.unlock(password: password("first"), access: .write)
    _ = try importFixtures(into: first, ["photo.jpg", "gray.png"])
    XCTAssertEqual(first.entries.count, 2)
    let decoy = try vault.unlock(password: password("decoy"), access: .read)
    XCTAssertEqual(decoy.entries.count, 0)
    XCTAssertThrowsError(try vault.unlock(password: password("First"), access: .read)) { error in
      XCTAssertEqual(error as? VaultError, .noSpaceForPassword)
    }
  }

  func testInitWithAPasswordThatHasASpaceChangesNothing() throws {
    let before = try listing(vault.path)
    XCTAssertThrowsError(try vault.createSpace(password: password("first"))) { error in
      XCTAssertEqual(error as? VaultError, .spaceAlreadyExists)
    }
    XCTAssertEqual(try listing(vault.path), before)
  }

  func testAFormat1SpaceMadeWithADecomposedPasswordStillOpens() throws {
    let decomposed = Array("cafe\u{301}".utf8)
    // Format 1 derived the key from the bytes as typed.
    try vault.createSpace(password: Password(exactly: decomposed))
    XCTAssertNoThrow(try vault.unlock(password: Password(utf8: decomposed), access: .read))
    XCTAssertThrowsError(try vault.unlock(password: password("caf\u{E9}"), access: .read)) {
      XCTAssertEqual($0 as? VaultError, .noSpaceForPassword, "NFC typed opens only NFC-made spaces")
    }
    // Making a space with the same password typed the same way would hide the old one.
    XCTAssertThrowsError(try vault.createSpace(password: Password(utf8: decomposed))) {
      XCTAssertEqual($0 as? VaultError, .spaceAlreadyExists)
    }
  }

  func testImportSkipsDuplicatesAndReportsFailures() throws {
    let space = try vault.unlock(password: password("first"), access: .write)
    let events = try importFixtures(
      into: space, ["photo.jpg", "bad/notes.txt", "photo.jpg", "bad/empty.jpg"])
    var added = 0
    var duplicates = 0
    var failures: [String] = []
    for event in events {
      switch event {
      case .added: added += 1
      case .duplicate: duplicates += 1
      case .failed(let path, let error):
        failures.append(path)
        XCTAssertTrue(error.description.contains((path as NSString).lastPathComponent), error.description)
      case .warning: break
      case .skipped: XCTFail("files named one by one are never skipped")
      case .sourceRemoved, .sourceKept: XCTFail("nothing is moved")
      case .paired, .livePairKept: XCTFail("no Live Photo")
      }
    }
    // The same path twice is one file: a duplicate comes from a second import.
    XCTAssertEqual(added, 1)
    XCTAssertEqual(failures.count, 2)
    _ = try importFixtures(into: space, ["photo.jpg"])
    XCTAssertEqual(space.entries.count, 1)
    duplicates = try importFixtures(into: space, ["photo.jpg", "progressive.jpg"]).filter {
      if case .duplicate = $0 { return true } else { return false }
    }.count
    XCTAssertEqual(duplicates, 1)
    XCTAssertEqual(space.entries.count, 2)
    XCTAssertTrue(try listing(space.photoDirectory).allSatisfy { !$0.hasPrefix(".tmp-") })
  }

  func testAnImportWhoseSpaceDoesNotUnlockWritesNothing() throws {
    let space = try vault.unlock(password: password("first"), access: .write)
    let before = try listing(vault.path)
    // More files than the pipeline holds at once, so that some wait for the space.
    let files = Array(repeating: ["photo.jpg", "gray.png", "rgba.png", "palette.png"], count: 10).flatMap {
      $0
    }
    .map { fixturesPath + "/" + $0 }
    var reports = 0
    XCTAssertThrowsError(
      try PhotoImporter(parallelism: 2).importFiles(files, unlocking: { throw VaultError.noSpaceForPassword })
      { _, _ in
        reports += 1
      }
    ) { error in
      XCTAssertEqual(error as? VaultError, .noSpaceForPassword)
    }
    XCTAssertEqual(reports, 0)
    XCTAssertEqual(try listing(vault.path), before)
    XCTAssertEqual(space.entries.count, 0)
  }

  func testAnInterruptedImportListsWhatItReportedAndLeavesNoTemporaryFile() throws {
    let space = try vault.unlock(password: password("first"), access: .write)
    let files = ["photo.jpg", "gray.png", "rgba.png", "palette.png", "gray.jpg", "progressive.jpg"].map {
      fixturesPath + "/" + $0
    }
    let asked = Interruption()
    asked.request()
    let none = try PhotoImporter().importFiles(files, into: space, interruption: asked) { _, _ in
      XCTFail("nothing may be reported")
    }
    XCTAssertEqual(none, ImportSummary(interrupted: true))
    XCTAssertEqual(space.entries.count, 0)
    // Asked to stop when the first photos are reported: those stay, the rest are not
    // started or are discarded.
    let interruption = Interruption()
    var added: [String] = []
    let summary = try PhotoImporter(parallelism: 1).importFiles(
      files, into: space, interruption: interruption
    ) {
      event, _ in
      if case .added(let path, _) = event { added.append((path as NSString).lastPathComponent) }
      interruption.request()
    }
    XCTAssertEqual(summary.added, added.count)
    XCTAssertEqual(space.entries.map(\.record.name), added)
    // (Whether any were left depends on how the reports fell, not on the machine's speed.)
    XCTAssertEqual(summary.interrupted, added.count < files.count, "\(summary)")
    for folder in [space.directory, space.photoDirectory, space.thumbDirectory, space.journalDirectory] {
      // The writer's own mark stays while it has the space open.
      XCTAssertTrue(
        try listing(folder).allSatisfy { !$0.hasPrefix(".tmp-") || $0 == space.writerMarkName }, folder)
    }
    XCTAssertEqual(SpaceVerifier(space: space).verify().filter(\.isProblem), [])
  }

  func testSelectionIsStoredAndDeleteRemovesBlobs() throws {
    var space: Space? = try vault.unlock(password: password("first"), access: .write)
    _ = try importFixtures(into: space!, ["photo.jpg", "gray.png", "rgba.png"])
    try space!.setSelection([0, 2], to: true)
    space = nil
    let reopened = try vault.unlock(password: password("first"), access: .write)
    XCTAssertEqual(reopened.entries.map(\.selected), [true, false, true])
    let doomed = reopened.entries.filter(\.selected).map(\.record.id)
    try reopened.deletePhotos(ids: Set(doomed))
    XCTAssertEqual(reopened.entries.map(\.record.name), ["gray.png"])
    for id in doomed {
      XCTAssertFalse(fileExists(reopened.photoPath(id)))
      XCTAssertFalse(fileExists(reopened.thumbPath(id)))
    }
  }

  func testExportIsBitExactNeverOverwritesAndRestoresModificationTime() throws {
    let space = try vault.unlock(password: password("first"), access: .write)
    let source = fixturesPath + "/photo.jpg"
    _ = try importFixtures(into: space, ["photo.jpg"])
    let target = folder + "/out"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    var paths: [String] = []
    for _ in 0..<3 {
      PhotoExporter(browser: space.makeBrowser()).export(space.models(), to: target, thumbnails: false) {
        event in
        if case .exported(_, let path) = event { paths.append(path) } else { XCTFail("\(event)") }
      }
    }
    XCTAssertEqual(
      paths.map { ($0 as NSString).lastPathComponent }, ["photo.jpg", "photo (1).jpg", "photo (2).jpg"])
    for path in paths { XCTAssertEqual(try fileBytes(path), try fileBytes(source)) }
    let original = try FileManager.default.attributesOfItem(atPath: source)[.modificationDate] as? Date
    let exported = try FileManager.default.attributesOfItem(atPath: paths[0])[.modificationDate] as? Date
    XCTAssertEqual(original!.timeIntervalSince1970, exported!.timeIntervalSince1970, accuracy: 0.001)
  }

  func testADamagedOriginalIsNamedAndLeavesNoFileBehind() throws {
    let space = try vault.unlock(password: password("first"), access: .write)
    _ = try importFixtures(into: space, ["photo.jpg", "gray.png"])
    let victim = space.entries[0].record
    var bytes = try fileBytes(space.photoPath(victim.id))
    bytes[bytes.count - 5] ^= 1
    try writeBytes(bytes, to: space.photoPath(victim.id))
    let target = folder + "/out"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    var failures: [String] = []
    let exported = PhotoExporter(browser: space.makeBrowser()).export(
      space.models(), to: target, thumbnails: false
    ) {
      event in
      if case .failed(let name, let error) = event {
        failures.append(name)
        XCTAssertTrue(error.description.contains("photo 'photo.jpg'"), error.description)
      }
    }
    XCTAssertEqual(exported.exported, 1)
    XCTAssertFalse(exported.interrupted)
    XCTAssertEqual(failures, ["photo.jpg"])
    XCTAssertEqual(try listing(target), ["gray.png"])
  }

  func testAParallelExportNamesEveryFileInOrderAndADamagedOriginalFailsAlone() throws {
    // 40 distinct photos, each of 10 names used by 4 of them, in folders s0…s3.
    var sources: [String] = []
    for index in 0..<40 {
      let subfolder = folder + "/s\(index / 10)"
      try FileManager.default.createDirectory(atPath: subfolder, withIntermediateDirectories: true)
      let path = subfolder + "/p\(index % 10).png"
      try writeBytes(
        TestImages.png(
          TestImages.photoLike(width: 24, height: 16, seed: UInt64(index + 1)), interlaced: false),
        to: path)
      sources.append(path)
    }
    let space = try vault.unlock(password: password("first"), access: .write)
    try PhotoImporter().importFiles(sources, into: space) { _, _ in }
    XCTAssertEqual(space.entries.count, 40)
    let victim = 17
    let victimPath = space.photoPath(space.entries[victim].record.id)
    var damaged = try fileBytes(victimPath)
    damaged[damaged.count - 5] ^= 1
    try writeBytes(damaged, to: victimPath)
    let target = folder + "/out"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)

    var events: [ExportEvent] = []
    let result = PhotoExporter(browser: space.makeBrowser(), parallelism: 4).export(
      space.models(), to: target, thumbnails: false
    ) {
      events.append($0)
    }
    XCTAssertEqual(result.exported, 39)
    XCTAssertFalse(result.interrupted)
    XCTAssertEqual(events.count, 40)
    // Each file is exported under the name it shows (numbered in import order), the
    // damaged one's left unused.
    let shown = space.catalog.shownNames()
    for (index, event) in events.enumerated() {
      let record = space.entries[index].record
      XCTAssertEqual(record.name, "p\(index % 10).png")
      if index == victim {
        guard case .failed(let name, let error) = event else { return XCTFail("\(event)") }
        XCTAssertEqual(name, record.name)
        XCTAssertTrue(error.description.contains("photo 'p7.png'"), error.description)
        continue
      }
      guard case .exported(let name, let path) = event else { return XCTFail("\(index): \(event)") }
      XCTAssertEqual(name, record.name)
      XCTAssertEqual(path, target + "/" + PathComponent.numbered(name, index / 10))
      XCTAssertEqual(path, target + "/" + shown[record.id]!)
      XCTAssertTrue(try fileBytes(path) == fileBytes(sources[index]), "\(path) is not \(sources[index])")
    }
    XCTAssertEqual(try listing(target).count, 39, "nothing for the damaged photo, no hidden files")
  }

  func testABlobSwappedBetweenPhotosIsDetected() throws {
    let space = try vault.unlock(password: password("first"), access: .write)
    _ = try importFixtures(into: space, ["photo.jpg", "gray.png"])
    let (a, b) = (space.entries[0].record, space.entries[1].record)
    let aBytes = try fileBytes(space.photoPath(a.id))
    try writeBytes(try fileBytes(space.photoPath(b.id)), to: space.photoPath(a.id))
    try writeBytes(aBytes, to: space.photoPath(b.id))
    XCTAssertThrowsError(try space.openOriginal(a))
    XCTAssertThrowsError(try space.openOriginal(b))
    XCTAssertNoThrow(try space.thumbnail(of: b))
    try FileManager.default.removeItem(atPath: space.thumbPath(b.id))
    try FileManager.default.copyItem(atPath: space.thumbPath(a.id), toPath: space.thumbPath(b.id))
    XCTAssertThrowsError(try space.thumbnail(of: b))
  }

  func testADamagedIndexOrKeyIsReportedByName() throws {
    let space = try vault.unlock(password: password("first"), access: .read)
    let snapshot = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory).first {
      $0.hasPrefix("s-")
    }!
    let indexPath = space.journalDirectory + "/" + snapshot
    let keyPath = space.directory + "/key"
    var index = try fileBytes(indexPath)
    index[index.count - 1] ^= 1
    try writeBytes(index, to: indexPath)
    // The space still opens (so that verify --repair can rebuild the index), but nothing
    // else works in it until then.
    let damaged = try vault.unlock(password: password("first"), access: .read)
    XCTAssertThrowsError(try damaged.requireIndex()) { error in
      guard case VaultError.damagedIndex(let path, _) = error else { return XCTFail("\(error)") }
      XCTAssertEqual(path, indexPath)
      // The hint naming `vault verify --repair` is the CLI's (CommandHintTests).
      XCTAssertFalse("\(error)".contains("vault verify --repair"))
    }
    var key = try fileBytes(keyPath)
    key[40] ^= 1
    try writeBytes(key, to: keyPath)
    XCTAssertThrowsError(try vault.unlock(password: password("first"), access: .read)) { error in
      XCTAssertEqual(error as? VaultError, .damagedKey(path: keyPath))
    }
  }
}
