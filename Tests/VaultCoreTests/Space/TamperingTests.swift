import Foundation
import XCTest

@testable import VaultCore

/// Attacks every kind of file of a vault and checks that each change is detected, named,
/// and leaves the other photos readable.
final class TamperingTests: XCTestCase {
  var folder = ""
  var vault: Vault!
  var space: Space!
  var other: Space!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    try vault.createSpace(password: password("other"))
    space = try vault.unlock(password: password("first"), access: .write)
    try PhotoImporter().importFiles(
      ["photo.jpg", "gray.png", "rgba.png", "progressive.jpg"].map { fixturesPath + "/" + $0 }, into: space
    ) { _, _ in }
    other = try vault.unlock(password: password("other"), access: .write)
    try PhotoImporter().importFiles([fixturesPath + "/palette.png"], into: other) { _, _ in }
    XCTAssertEqual(space.entries.count, 4)
  }

  /// Positions spread over a file: both ends and `count` points between.
  func positions(in length: Int, count: Int = 24) -> [Int] {
    Array(Set([0, 1, length - 1] + (0..<count).map { $0 * length / count })).filter { $0 >= 0 && $0 < length }
      .sorted()
  }

  func problems() -> [VerifyFinding] {
    SpaceVerifier(space: space).verify().filter(\.isProblem)
  }

  /// Runs `damage` on a copy of `path`, checks what verify says, then puts the file back.
  func withDamaged(
    _ path: String, _ what: String, _ damage: ([UInt8]) -> [UInt8],
    check: ([VerifyFinding], String) throws -> Void
  )
    throws
  {
    let original = try fileBytes(path)
    try writeBytes(damage(original), to: path)
    defer { try? writeBytes(original, to: path) }
    try check(problems(), what)
  }

  func assertOthersReadable(except victim: BlobID, file: StaticString = #filePath, line: UInt = #line) {
    for entry in space.entries where entry.record.id != victim {
      XCTAssertNoThrow(try space.openOriginal(entry.record).readContent { _ in }, file: file, line: line)
      XCTAssertNoThrow(try space.thumbnail(of: entry.record), file: file, line: line)
    }
  }

  func testAnIntactSpaceVerifies() {
    XCTAssertEqual(problems(), [])
    XCTAssertEqual(SpaceVerifier(space: space).verify().count, 4)
  }

  func testChangedOriginalsAreNamed() throws {
    let victim = space.entries[1].record
    let path = space.photoPath(victim.id)
    let length = try fileBytes(path).count
    let expectDamaged: ([VerifyFinding], String) -> Void = { found, what in
      XCTAssertEqual(found.count, 1, "\(what): \(found)")
      guard case .damagedOriginal(2, "gray.png", victim.id.hex, _)? = found.first else {
        return XCTFail("\(found)")
      }
    }
    for position in positions(in: length) {
      try withDamaged(
        path, "flip \(position)",
        {
          var b = $0
          b[position] ^= 0x04
          return b
        }, check: expectDamaged)
    }
    for cut in positions(in: length) {
      try withDamaged(path, "cut \(cut)", { Array($0[0..<cut]) }, check: expectDamaged)
    }
    try withDamaged(path, "garbage", { $0 + Array("appended".utf8) }, check: expectDamaged)
    let stranger = try fileBytes(other.photoPath(other.entries[0].record.id))
    try withDamaged(path, "another space's blob", { _ in stranger }, check: expectDamaged)
    assertOthersReadable(except: victim.id)
  }

  /// The whole plaintext of a blob (its payload and its padding).
  func plaintext(of path: String, kind: BlobKind, id: BlobID) throws -> [UInt8] {
    try BlobReader(path: path, kind: kind, key: space.master.blobKey(kind: kind, id: id), what: path)
      .readToEnd(limit: 64 << 20)
  }

  func testTamperedPaddingIsNamed() throws {
    // Re-encrypted with the right key, as someone who has the password could: every chunk
    // authenticates, and only the padding is wrong.
    for (number, entry) in space.entries.enumerated() {
      let record = entry.record
      let payload = try OriginalBlob.header(for: record).count + Int(record.bytes)
      let padding = Padme.paddedLength(payload) - payload
      let path = space.photoPath(record.id)
      var content: [UInt8] = []
      try space.openOriginal(record).readContent { content.append(contentsOf: $0) }
      let key = space.master.blobKey(kind: .original, id: record.id)
      // Version 2, which vaults written before version 3 hold: the record first.
      let plaintext = try OriginalBlob.header(for: record) + content + [UInt8](repeating: 0, count: padding)
      let version2 = { (plaintext: [UInt8]) in
        sealedBlob(plaintext, kind: .original, version: BlobFormat.paddedVersion, key: key)
      }
      var damages: [(String, [UInt8])] = [
        (
          "holds more padding than the \(padding) bytes a \(payload)-byte payload gets",
          version2(plaintext + [0])
        )
      ]
      // Version 3, what vault writes: the original, the padding, the record and its length.
      let json = try OriginalBlob.recordJSON(record)
      let zeros = [UInt8](repeating: 0, count: padding)
      let trailer = json + LengthPrefixedPayload.lengthBytes(json.count)
      let version3 = { (plaintext: [UInt8]) in sealedSeekableBlob(plaintext, kind: .original, key: key) }
      let lengthReason = { (count: Int) in
        "holds \(count) bytes, a \(record.bytes)-byte payload and \(json.count)-byte trailer get \(payload + padding)"
      }
      damages.append((lengthReason(payload + padding + 1), version3(content + zeros + [0] + trailer)))
      if padding > 0 {
        var nonZero = plaintext
        nonZero[payload + padding / 2] = 1
        damages.append(("its padding is not all zero bytes", version2(nonZero)))
        damages.append(
          (
            "holds \(padding - 1) bytes of padding, a \(payload)-byte payload gets \(padding)",
            version2(Array(plaintext.dropLast()))
          ))
        var nonZero3 = zeros
        nonZero3[padding / 2] = 1
        damages.append(("its padding is not all zero bytes", version3(content + nonZero3 + trailer)))
        damages.append((lengthReason(payload + padding - 1), version3(content + zeros.dropLast() + trailer)))
      }
      for (reason, damaged) in damages {
        try withDamaged(
          path, reason, { _ in damaged },
          check: { found, what in
            XCTAssertEqual(
              found,
              [.damagedOriginal(number: number + 1, name: record.name, id: record.id.hex, reason: reason)],
              what
            )
            XCTAssertThrowsError(try space.openOriginal(record).readContent { _ in }, what) { error in
              XCTAssertEqual(error as? VaultError, .damagedBlob(what: space.describe(record), reason: reason))
            }
          })
      }
    }

    let victim = try XCTUnwrap(
      space.entries.map(\.record).first { record in
        let jpeg = try space.thumbnail(of: record)
        return Padme.paddedLength(4 + jpeg.count) > 4 + jpeg.count
      }, "a thumbnail with padding")
    let path = space.thumbPath(victim.id)
    let key = space.master.blobKey(kind: .thumbnail, id: victim.id)
    var nonZero = try plaintext(of: path, kind: .thumbnail, id: victim.id)
    nonZero[nonZero.count - 1] = 0xFF
    let number = space.entries.firstIndex { $0.record.id == victim.id }! + 1
    for damaged in [nonZero, Array(nonZero.dropLast()), nonZero + [0]] {
      try withDamaged(
        path, "thumbnail",
        { _ in sealedBlob(damaged, kind: .thumbnail, version: BlobFormat.paddedVersion, key: key) },
        check: { found, _ in
          XCTAssertEqual(found.count, 1, "\(found)")
          guard case .damagedThumbnail(number, victim.name, victim.id.hex, let reason)? = found.first else {
            return XCTFail("\(found)")
          }
          XCTAssertTrue(reason.contains("padding"), reason)
        })
    }
    XCTAssertEqual(problems(), [])
  }

  func testSwappedOriginalsAreBothNamed() throws {
    let a = space.entries[0].record
    let b = space.entries[2].record
    let bBytes = try fileBytes(space.photoPath(b.id))
    try withDamaged(
      space.photoPath(a.id), "swap",
      { bytes in
        try? writeBytes(bytes, to: self.space.photoPath(b.id))
        return bBytes
      },
      check: { found, _ in
        let names = found.compactMap { finding -> String? in
          if case .damagedOriginal(_, let name?, _, _) = finding { return name }
          return nil
        }
        XCTAssertEqual(Set(names), [a.name, b.name], "\(found)")
      })
  }

  func testChangedThumbnailsAreNamed() throws {
    let victim = space.entries[3].record
    let path = space.thumbPath(victim.id)
    let length = try fileBytes(path).count
    let expectDamaged: ([VerifyFinding], String) -> Void = { found, what in
      XCTAssertEqual(found.count, 1, "\(what): \(found)")
      guard case .damagedThumbnail(4, "progressive.jpg", victim.id.hex, _)? = found.first else {
        return XCTFail("\(found)")
      }
    }
    for position in positions(in: length) {
      try withDamaged(
        path, "flip",
        {
          var b = $0
          b[position] ^= 0x80
          return b
        }, check: expectDamaged)
    }
    for cut in positions(in: length, count: 12) {
      try withDamaged(path, "cut", { Array($0[0..<cut]) }, check: expectDamaged)
    }
    try withDamaged(path, "garbage", { $0 + [0, 1, 2] }, check: expectDamaged)
    let sibling = try fileBytes(space.thumbPath(space.entries[0].record.id))
    try withDamaged(path, "a sibling's thumbnail", { _ in sibling }, check: expectDamaged)
    try FileManager.default.removeItem(atPath: path)
    XCTAssertEqual(problems(), [.missingThumbnail(number: 4, name: "progressive.jpg", id: victim.id.hex)])
    assertOthersReadable(except: victim.id)
  }

  func testAChangedKeyIsNamedAndOpensNothing() throws {
    let path = space.directory + "/key"
    let otherKey = try fileBytes(other.directory + "/key")
    // Release the write locks this test's own unlocks would wait for.
    space = nil
    other = nil
    let original = try fileBytes(path)
    for position in 0..<original.count {
      var damaged = original
      damaged[position] ^= 0x10
      try writeBytes(damaged, to: path)
      XCTAssertThrowsError(try vault.unlock(password: password("first"), access: .read), "flip \(position)") {
        XCTAssertEqual($0 as? VaultError, .damagedKey(path: path))
      }
    }
    for damaged in [Array(original.dropLast()), original + [0], [], otherKey] {
      try writeBytes(damaged, to: path)
      XCTAssertThrowsError(try vault.unlock(password: password("first"), access: .read)) {
        XCTAssertEqual($0 as? VaultError, .damagedKey(path: path))
      }
    }
    try writeBytes(original, to: path)
    XCTAssertNoThrow(try vault.unlock(password: password("first"), access: .read))
    XCTAssertNoThrow(try vault.unlock(password: password("other"), access: .read))
  }

  /// The journal's only file: its snapshot, after a compaction.
  func compactedSnapshot(of space: Space) throws -> String {
    try space.compactJournal()
    let names = try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory)
    XCTAssertEqual(names.count, 1, "\(names)")
    return space.journalDirectory + "/" + names[0]
  }

  func testAChangedSnapshotLeavesTheSpaceRepairable() throws {
    try space.setSelection([0], to: true)
    let path = try compactedSnapshot(of: space)
    let original = try fileBytes(path)
    let names = Set(space.entries.map(\.record.name))
    space = nil
    let damages: [([UInt8]) -> [UInt8]] = [
      {
        var b = $0
        b[b.count / 2] ^= 1
        return b
      },
      {
        var b = $0
        b[3] ^= 1
        return b
      },
      { Array($0.dropLast(5)) }, { $0 + [9] }, { _ in [] },
    ]
    for damage in damages {
      try writeBytes(damage(original), to: path)
      let opened = try vault.unlock(password: password("first"), access: .read)
      guard case .damagedIndex(let named, _)? = opened.indexDamage else { return XCTFail("not detected") }
      XCTAssertEqual(named, path)
      XCTAssertThrowsError(try opened.requireIndex())
      XCTAssertEqual(SpaceVerifier(space: opened).verify().filter(\.isProblem).count, 5, "index + 4 orphans")
    }
    // Another space's snapshot does not open here either.
    try writeBytes(try fileBytes(try compactedSnapshot(of: other)), to: path)
    other = nil
    XCTAssertNotNil(try vault.unlock(password: password("first"), access: .read).indexDamage)

    let repairing = try vault.unlock(password: password("first"), access: .write)
    let summary = try SpaceVerifier(space: repairing).repair()
    XCTAssertTrue(summary.indexRebuilt && summary.selectionLost)
    XCTAssertEqual(Set(repairing.entries.map(\.record.name)), names)
    XCTAssertEqual(repairing.entries.filter(\.selected).count, 0)
    space = repairing
    XCTAssertEqual(problems(), [])
  }

  func testRepairRemovesAnOrphanThatCopiesAListedPhoto() throws {
    // An import killed after its blobs were in place, then the same photo imported again.
    let dropped = space.entries[0]
    try forgetPhotos(keeping: Array(space.entries.dropFirst()))
    try PhotoImporter().importFiles([fixturesPath + "/photo.jpg"], into: space) { _, _ in }
    XCTAssertEqual(space.entries.count, 4)
    XCTAssertEqual(problems(), [.orphanOriginal(id: dropped.record.id.hex, name: "photo.jpg")])
    let summary = try SpaceVerifier(space: space).repair()
    XCTAssertEqual(summary.adopted, [])
    XCTAssertEqual(
      summary.removedFiles, ["Photo/\(dropped.record.id) (a second copy of a photo in the space)"])
    XCTAssertEqual(problems(), [])
    XCTAssertEqual(space.entries.count, 4)
  }

  func testRepairFixesWhatItCanAndKeepsDamagedOriginals() throws {
    let entries = space.entries
    // An orphan original (its entry dropped), a missing thumbnail, an orphan thumbnail,
    // temporary files, an entry whose original is gone, and a damaged original.
    try forgetPhotos(keeping: Array(entries.dropFirst()))
    try FileManager.default.removeItem(atPath: space.thumbPath(entries[1].record.id))
    try writeBytes([1, 2, 3], to: space.thumbPath(BlobID.random()))
    try writeBytes([1], to: space.photoDirectory + "/.tmp-0123456789abcdef")
    try writeBytes([1], to: space.directory + "/.tmp-89abcdef01234567")
    try FileManager.default.removeItem(atPath: space.photoPath(entries[2].record.id))
    var damaged = try fileBytes(space.photoPath(entries[3].record.id))
    damaged[damaged.count - 3] ^= 1
    try writeBytes(damaged, to: space.photoPath(entries[3].record.id))

    let found = problems()
    XCTAssertTrue(
      found.contains(.orphanOriginal(id: entries[0].record.id.hex, name: entries[0].record.name)), "\(found)")
    XCTAssertTrue(
      found.contains(.missingThumbnail(number: 1, name: entries[1].record.name, id: entries[1].record.id.hex))
    )
    XCTAssertTrue(
      found.contains(.missingOriginal(number: 2, name: entries[2].record.name, id: entries[2].record.id.hex)))
    XCTAssertTrue(found.contains(.temporaryFile(path: "Photo/.tmp-0123456789abcdef")))
    XCTAssertTrue(found.contains(.temporaryFile(path: ".tmp-89abcdef01234567")))

    let summary = try SpaceVerifier(space: space).repair()
    XCTAssertEqual(summary.adopted, [entries[0].record.name])
    // A photo whose original is missing stays listed: in a synced vault the original may
    // still arrive, and a deletion in the journal would delete it on every copy.
    XCTAssertEqual(summary.droppedMissing, [])
    XCTAssertEqual(summary.keptMissing.map(\.id), [entries[2].record.id])
    XCTAssertFalse(space.wasDeleted(entries[2].record.id))
    XCTAssertEqual(summary.thumbnailsRemade, [entries[1].record.name])
    XCTAssertEqual(summary.damagedOriginals.count, 1)
    XCTAssertTrue(fileExists(space.photoPath(entries[3].record.id)), "a damaged original is never deleted")
    let left = problems().filter { if case .missingOriginal = $0 { return false } else { return true } }
    XCTAssertEqual(left.count, 1, "\(left)")
    guard case .damagedOriginal(_, entries[3].record.name, _, _)? = left.first else {
      return XCTFail("\(left)")
    }
    XCTAssertNoThrow(
      try space.openOriginal(space.entries.first { $0.record.id == entries[0].record.id }!.record).readContent
      { _ in })
  }

  /// The index as JSON, with the id of photo `number` (1-based) replaced by `id`.
  func indexJSON(replacingIDOf number: Int, with id: String) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = String(decoding: try encoder.encode(SpaceIndex(photos: space.entries)), as: UTF8.self)
    let old = "\(space.entries[number - 1].record.id)"
    XCTAssertTrue(json.contains(old))
    return Array(json.replacingOccurrences(of: old, with: id).utf8)
  }

  /// Encrypts `plaintext` as the blob at `path` with the space's key, as someone who has
  /// the password could.
  func writeBlob(_ plaintext: [UInt8], kind: BlobKind, id: BlobID, to path: String) throws {
    let file = try TemporaryFile(in: (path as NSString).deletingLastPathComponent)
    let writer = try BlobWriter(kind: kind, key: space.master.blobKey(kind: kind, id: id), output: file)
    try writer.write(plaintext)
    try writer.finish()
    try file.replace(path)
  }

  func testAFormat1RecordFormat2CannotHoldStopsTheUpgradeAndKeepsFormat1() throws {
    // Format 1's JSON takes any orientation; format 2 stores 1 to 8. Forged by someone with
    // the password, as format 1 could have been.
    var entries = space.entries
    entries[1].record.orientation = 9
    removeTree(space.journalDirectory)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try writeBlob(
      Array(try encoder.encode(SpaceIndex(photos: entries))), kind: .index, id: .index, to: space.indexPath)
    let indexPath = space.indexPath
    space = nil
    XCTAssertThrowsError(try vault.unlock(password: password("first"), access: .write)) { error in
      guard case VaultError.damagedIndex(indexPath, let reason) = error else { return XCTFail("\(error)") }
      XCTAssertTrue(reason.contains("cannot be upgraded to format 2"), reason)
    }
    let reader = try vault.unlock(password: password("first"), access: .read)
    XCTAssertEqual(reader.formatVersion, 1, "still format 1")
    XCTAssertEqual(reader.entries.count, 4)
    XCTAssertFalse(fileExists(reader.journalDirectory))
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: reader.directory).filter {
        $0.hasPrefix(".tmp-journal")
      }, [])
  }

  func testAnIndexIDThatIsAPathIsDamageAndNoCommandReachesThePath() throws {
    let victim = folder + "/victim"
    try writeBytes([1, 2, 3], to: victim)
    // From Photo/ or Thumb/, enough "../" to reach the root, then the victim's path.
    let forged = String(repeating: "../", count: 12) + victim.dropFirst()
    // Format 1's JSON index could hold any string as an id (format 2 stores 16 bytes): the
    // space is turned back into format 1 with a forged index.
    removeTree(space.journalDirectory)
    try writeBlob(
      try indexJSON(replacingIDOf: 2, with: forged), kind: .index, id: .index, to: space.indexPath)
    let indexPath = space.indexPath
    space = nil

    let opened = try vault.unlock(password: password("first"), access: .write)
    guard case .damagedIndex(let path, let reason)? = opened.indexDamage else {
      return XCTFail("a path as a photo id was not detected")
    }
    XCTAssertEqual(path, indexPath)
    XCTAssertEqual(reason, "entry 2 has a malformed photo id")
    XCTAssertEqual(opened.models().count, 0, "list shows nothing from a damaged index")
    XCTAssertThrowsError(try opened.deletePhotos(ids: Set(opened.entries.map(\.record.id))))
    XCTAssertThrowsError(try opened.setSelection(Array(opened.entries.indices), to: true))
    let exportFolder = folder + "/export"
    try FileManager.default.createDirectory(atPath: exportFolder, withIntermediateDirectories: false)
    PhotoExporter(browser: opened.makeBrowser()).export(opened.models(), to: exportFolder, thumbnails: false)
    { _ in }
    XCTAssertTrue(fileExists(victim))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: exportFolder), [])

    XCTAssertEqual(
      SpaceVerifier(space: opened).verify().filter(\.isProblem).first,
      .damagedIndex(reason: "entry 2 has a malformed photo id"))
    let summary = try SpaceVerifier(space: opened).repair()
    XCTAssertTrue(summary.indexRebuilt)
    XCTAssertEqual(opened.entries.count, 4, "the index is rebuilt from the originals")
    XCTAssertEqual(try fileBytes(victim), [1, 2, 3], "the victim is untouched")
    space = opened
    XCTAssertEqual(problems(), [])
  }

  func testARecordWhoseIDIsAPathMakesItsOriginalDamaged() throws {
    let victim = folder + "/victim"
    try writeBytes([1, 2, 3], to: victim)
    var record = space.entries[0].record
    record.name = "forged.jpg"
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = String(decoding: try encoder.encode(record), as: UTF8.self)
      .replacingOccurrences(
        of: "\(record.id)", with: String(repeating: "../", count: 12) + victim.dropFirst())
    let length = UInt32(json.utf8.count)
    let header = withUnsafeBytes(of: length.bigEndian) { Array($0) } + Array(json.utf8)
    let id = BlobID.random()
    try writeBlob(header + [1, 2, 3], kind: .original, id: id, to: space.photoPath(id))
    XCTAssertEqual(
      problems(),
      [.damagedOriginal(number: nil, name: nil, id: "\(id)", reason: "its record has a malformed photo id")])
    let summary = try SpaceVerifier(space: space).repair()
    XCTAssertEqual(summary.adopted, [])
    XCTAssertEqual(summary.damagedOriginals, ["Photo/\(id)"])
    XCTAssertEqual(space.entries.count, 4)
    XCTAssertEqual(try fileBytes(victim), [1, 2, 3])
  }

  func testExportNamesFromForgedRecordsStayInTheFolder() {
    // "/" + a combining mark, and a prepended mark + "/", are single Characters that still
    // hold a "/" byte.
    for name in ["a/\u{301}b", "\u{600}/../x", "../..", "..", ".", "", "a\0b", "/etc/passwd", "x/\u{200D}y"] {
      for number in 0..<2 {
        let safe = PathComponent.numbered(PhotoExporter.safeName(name), number)
        XCTAssertFalse(
          safe.utf8.contains(UInt8(ascii: "/")), "\(name.debugDescription) gave \(safe.debugDescription)")
        XCTAssertFalse(safe.utf8.contains(0), "\(name.debugDescription) gave \(safe.debugDescription)")
        XCTAssertFalse(
          ["", ".", ".."].contains(safe), "\(name.debugDescription) gave \(safe.debugDescription)")
      }
    }
  }

  /// Makes the journal list only `kept`, with no trace of the others: what a killed import
  /// leaves (its blobs in place, its journal record never written).
  func forgetPhotos(keeping kept: [IndexEntry]) throws {
    // A rebuild keeps what the journal holds: the journal goes first.
    for name in try FileManager.default.contentsOfDirectory(atPath: space.journalDirectory) {
      try FileManager.default.removeItem(atPath: space.journalDirectory + "/" + name)
    }
    try space.saveEntries(kept, rebuilding: true)
  }

  func testAWriterCleansUpAfterAKilledWriter() throws {
    let entries = space.entries
    let strayThumbnail = space.thumbPath(BlobID.random())
    let temporary = [
      space.directory + "/.tmp-writer-0123456789abcdef", space.photoDirectory + "/.tmp-1123456789abcdef",
      space.thumbDirectory + "/.tmp-2123456789abcdef", space.journalDirectory + "/.tmp-3123456789abcdef",
    ]
    // An import cut short after its blobs were in place (0), a delete cut short after the
    // journal named it and its thumbnail was removed (1), an orphan whose original is
    // damaged (2), a thumbnail without an original, and temporary files (one of them the
    // killed writer's mark).
    try forgetPhotos(keeping: [entries[3], entries[1]])
    try space.saveEntries([entries[3]])
    try FileManager.default.removeItem(atPath: space.thumbPath(entries[1].record.id))
    var damaged = try fileBytes(space.photoPath(entries[2].record.id))
    damaged[damaged.count - 3] ^= 1
    try writeBytes(damaged, to: space.photoPath(entries[2].record.id))
    try writeBytes([1, 2, 3], to: strayThumbnail)
    for path in temporary { try writeBytes([1], to: path) }
    // (The deleted photo's original is a harmless leftover, listed but no problem.)
    XCTAssertEqual(problems().count, 7, "\(problems())")
    XCTAssertTrue(
      SpaceVerifier(space: space).verify().contains(
        .deletedPhotoLeftover(path: "Photo/" + entries[1].record.id.hex)))

    space = nil  // releases the lock
    do {
      let reader = try vault.unlock(password: password("first"), access: .read)
      XCTAssertEqual(
        SpaceVerifier(space: reader).verify().filter(\.isProblem).count, 7, "readers change nothing")
    }
    space = try vault.unlock(password: password("first"), access: .write)
    XCTAssertEqual(space.entries.map(\.record.id), [entries[3].record.id, entries[0].record.id])
    XCTAssertFalse(fileExists(space.photoPath(entries[1].record.id)), "a delete cut short is finished")
    XCTAssertFalse(fileExists(strayThumbnail))
    for path in temporary { XCTAssertFalse(fileExists(path), path) }
    XCTAssertTrue(fileExists(space.photoPath(entries[2].record.id)), "a damaged original is never deleted")
    let left = problems()
    guard left.count == 1, case .damagedOriginal(nil, nil, entries[2].record.id.hex, _) = left[0] else {
      return XCTFail("\(left)")
    }
  }

  func testWithoutAKilledWritersMarkAWriterDoesNotListTheBlobs() throws {
    // A cheap open for big spaces: only a killed writer's mark makes the next writer list
    // every blob. Without one, an orphan stays for verify to report.
    let entries = space.entries
    try forgetPhotos(keeping: Array(entries.dropFirst()))
    space = nil
    space = try vault.unlock(password: password("first"), access: .write)
    XCTAssertEqual(space.entries.count, 3)
    XCTAssertEqual(problems(), [.orphanOriginal(id: entries[0].record.id.hex, name: entries[0].record.name)])
  }

  func testAnOriginalWithoutThumbnailThatNoDeleteNamedIsKept() throws {
    // In a synced copy an original can arrive before its thumbnail: only a deletion in the
    // journal makes it a leftover.
    let entries = space.entries
    try forgetPhotos(keeping: Array(entries.dropFirst()))
    try FileManager.default.removeItem(atPath: space.thumbPath(entries[0].record.id))
    try writeBytes([1], to: space.directory + "/.tmp-writer-0123456789abcdef")
    space = nil
    space = try vault.unlock(password: password("first"), access: .write)
    XCTAssertTrue(fileExists(space.photoPath(entries[0].record.id)))
    XCTAssertEqual(problems(), [.orphanOriginal(id: entries[0].record.id.hex, name: entries[0].record.name)])
  }
}
