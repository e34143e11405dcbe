import Foundation
import XCTest

/// Runs the built `vault` binary the way a user or a script does.
final class VaultEndToEndTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var photos = ""
  var goodNames: [String] = []
  let badNames = ["corrupt.jpg", "truncated.png", "empty.jpg", "notes.txt"]

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = VaultRunner(vault: folder + "/vault", workingDirectory: folder)
    photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos + "/nested", withIntermediateDirectories: true)
    goodNames = try FileManager.default.contentsOfDirectory(atPath: fixturesPath)
      .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
    for name in goodNames {
      try FileManager.default.copyItem(atPath: fixturesPath + "/" + name, toPath: photos + "/" + name)
    }
    for name in badNames {
      try FileManager.default.copyItem(
        atPath: fixturesPath + "/bad/" + name, toPath: photos + "/nested/" + name)
    }
  }

  func makeSpaces() throws {
    XCTAssertEqual(try vault.run(["init", "--kdf", "interactive"]).status, 0)
    XCTAssertEqual(try vault.run(["init"], password: "decoy").status, 0)
  }

  func importAll() throws -> VaultRun {
    try vault.run(["add", photos])
  }

  func listJSON(password: String = "correct horse") throws -> [[String: Any]] {
    try vault.listJSON(password: password)
  }

  func selectedNumbers() throws -> [Int] {
    try listJSON().filter { $0["selected"] as? Bool == true }.compactMap { $0["index"] as? Int }
  }

  func testAddImportsGoodFilesAndNamesEveryBadOne() throws {
    try makeSpaces()
    let run = try importAll()
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(
      run.stdout.contains("added \(photoCount(goodNames.count)), skipped 0 duplicates, failed 3"), run.stdout)
    // A text file found in a folder is no photo: skipped and counted, not failed.
    XCTAssertTrue(
      run.stdout.contains("skipped 1 file that is not JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV"),
      run.stdout)
    for name in badNames where name != "notes.txt" {
      XCTAssertTrue(run.stderr.contains("nested/\(name)'"), "\(name) not named in: \(run.stderr)")
    }
    XCTAssertFalse(run.stderr.contains("notes.txt"), run.stderr)
    XCTAssertTrue(run.stderr.contains("warning: '\(photos)/truncated.jpg'"), run.stderr)
    let entries = try listJSON()
    XCTAssertEqual(entries.count, goodNames.count)
    XCTAssertEqual(entries.map { $0["index"] as? Int }, Array(1...goodNames.count))
    for key in ["index", "id", "name", "bytes", "width", "height", "importedAt", "selected"] {
      XCTAssertNotNil(entries.first?[key], key)
    }
    XCTAssertEqual(Set(entries.compactMap { $0["name"] as? String }), Set(goodNames))
    XCTAssertEqual(try listJSON(password: "decoy").count, 0)
    let decoyList = try vault.run(["list"], password: "decoy")
    XCTAssertEqual(decoyList.stdout, "no photos in this space\n")

    let again = try vault.run(["add", photos + "/photo.jpg"])
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertTrue(again.stdout.contains("added 0 items, skipped 1 duplicate, failed 0"), again.stdout)
  }

  func testAWrongPasswordOpensNothingAndCreatesNothing() throws {
    try makeSpaces()
    let before = try snapshot(vault.vault)
    for command in [["list"], ["add", photos], ["select", "--all"], ["export", "--all"]] {
      let run = try vault.run(command, password: "wrong")
      XCTAssertEqual(run.status, 3, "\(command)")
      XCTAssertEqual(
        run.stderr, "error: no space opens with this password\n", "\(command)")
    }
    XCTAssertEqual(try snapshot(vault.vault), before)
    let again = try vault.run(["init"])
    XCTAssertEqual(again.status, 1)
    XCTAssertTrue(again.stderr.contains("already opens with this password"), again.stderr)
    XCTAssertEqual(try snapshot(vault.vault), before)
  }

  func testPasswordSources() throws {
    let missing = try vault.run(["init", "--kdf", "interactive"], password: nil)
    XCTAssertEqual(missing.status, 1)
    XCTAssertTrue(missing.stderr.contains("VAULT_PASSWORD"), missing.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: vault.vault))
    try "from a file\nsecond line ignored\n".write(toFile: folder + "/pw", atomically: true, encoding: .utf8)
    XCTAssertEqual(
      try vault.run(["init", "--kdf", "interactive", "--password-file", folder + "/pw"], password: nil)
        .status, 0)
    XCTAssertEqual(try vault.run(["list"], password: "from a file").status, 0)
    let noFile = try vault.run(["list", "--password-file", folder + "/nope"], password: nil)
    XCTAssertTrue(noFile.stderr.contains(folder + "/nope"), noFile.stderr)
  }

  func testSelectUnselectAndDeleteSelected() throws {
    try makeSpaces()
    _ = try importAll()
    let decoyBefore = try snapshot(vault.vault)
    XCTAssertEqual(try vault.run(["select", "2", "5-7"]).status, 0)
    XCTAssertEqual(try selectedNumbers(), [2, 5, 6, 7])
    XCTAssertEqual(try vault.run(["unselect", "6"]).stdout, "3 of \(goodNames.count) photos selected\n")
    XCTAssertEqual(try selectedNumbers(), [2, 5, 7])
    XCTAssertEqual(try vault.run(["select", "--invert"]).status, 0)
    XCTAssertEqual(try selectedNumbers().count, goodNames.count - 3)
    XCTAssertEqual(try vault.run(["select", "--none"]).status, 0)
    XCTAssertEqual(try selectedNumbers(), [])
    let outOfRange = try vault.run(["select", "1", "99"])
    XCTAssertEqual(outOfRange.status, 1)
    XCTAssertTrue(outOfRange.stderr.contains("there is no photo 99"), outOfRange.stderr)
    XCTAssertEqual(try selectedNumbers(), [], "a failed select changes nothing")

    let nothing = try vault.run(["delete", "--selected", "--yes"])
    XCTAssertEqual(nothing.status, 1)
    XCTAssertTrue(nothing.stderr.contains("select photos before deleting"), nothing.stderr)

    XCTAssertEqual(try vault.run(["select", "1-3"]).status, 0)
    let doomed = try listJSON().prefix(3).compactMap { $0["id"] as? String }
    let unconfirmed = try vault.run(["delete", "--selected"])
    XCTAssertEqual(unconfirmed.status, 1)
    XCTAssertTrue(unconfirmed.stderr.contains("--yes"), unconfirmed.stderr)
    XCTAssertEqual(try listJSON().count, goodNames.count)

    let deleted = try vault.run(["delete", "--now", "--selected", "--yes"])
    XCTAssertEqual(deleted.status, 0, deleted.stderr)
    XCTAssertEqual(try listJSON().count, goodNames.count - 3)
    let after = try snapshot(vault.vault)
    for id in doomed {
      XCTAssertFalse(after.keys.contains { $0.hasSuffix("/Photo/" + id) || $0.hasSuffix("/Thumb/" + id) }, id)
    }
    let decoyFolder = try decoyTag()
    XCTAssertEqual(
      after.filter { $0.key.hasPrefix(decoyFolder) }, decoyBefore.filter { $0.key.hasPrefix(decoyFolder) })

    XCTAssertEqual(try vault.run(["delete", "1", "--yes"]).status, 0)
    XCTAssertEqual(try listJSON().count, goodNames.count - 4)
  }

  /// The folder of the decoy space: the one that is still empty.
  func decoyTag() throws -> String {
    for name in try FileManager.default.contentsOfDirectory(atPath: vault.vault) where name != "vault.json" {
      if try FileManager.default.contentsOfDirectory(atPath: vault.vault + "/" + name + "/Photo").isEmpty {
        return name
      }
    }
    // Every test here makes a decoy space and leaves it empty: finding none means one of
    // them leaked a photo into it, a failure, never a reason to skip.
    throw TestFailure("no empty space: a photo leaked into the decoy space")
  }

  func testExportGivesBackOriginalsBitForBit() throws {
    try makeSpaces()
    _ = try importAll()
    let run = try vault.run(["export", "--all", "--to", "out"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let exported = try FileManager.default.contentsOfDirectory(atPath: folder + "/out").sorted()
    XCTAssertEqual(exported, goodNames)
    for name in goodNames {
      XCTAssertEqual(
        sha256(try fileBytes(folder + "/out/" + name)), sha256(try fileBytes(photos + "/" + name)), name)
      let source =
        try FileManager.default.attributesOfItem(atPath: photos + "/" + name)[.modificationDate] as! Date
      let copy =
        try FileManager.default.attributesOfItem(atPath: folder + "/out/" + name)[.modificationDate] as! Date
      XCTAssertEqual(source.timeIntervalSince1970, copy.timeIntervalSince1970, accuracy: 0.001, name)
    }
    XCTAssertEqual(try vault.run(["export", "1", "--sort", "imported", "--to", "out"]).status, 0)
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: folder + "/out/" + ((goodNames[0] as NSString).deletingPathExtension + " (1).jpg")))

    XCTAssertEqual(try vault.run(["select", "--all"]).status, 0)
    let thumbs = try vault.run(["export", "--selected", "--thumbs", "--to", "thumbs"])
    XCTAssertEqual(thumbs.status, 0, thumbs.stderr)
    let thumbNames = try FileManager.default.contentsOfDirectory(atPath: folder + "/thumbs")
    XCTAssertTrue(thumbNames.contains("palette.jpg"), "\(thumbNames)")
    XCTAssertTrue(thumbNames.allSatisfy { $0.hasSuffix(".jpg") })
    XCTAssertEqual(try fileBytes(folder + "/thumbs/palette.jpg").prefix(3), [0xFF, 0xD8, 0xFF])

    let defaultTarget = try vault.run(["export", "2"])
    XCTAssertEqual(defaultTarget.status, 0, defaultTarget.stderr)
    XCTAssertTrue(
      try FileManager.default.contentsOfDirectory(atPath: folder).contains { $0.hasPrefix("vault-export-") })

    XCTAssertEqual(try vault.run(["select", "--none"]).status, 0)
    let nothing = try vault.run(["export", "--selected"])
    XCTAssertEqual(nothing.status, 1)
    XCTAssertTrue(nothing.stderr.contains("select photos before exporting"), nothing.stderr)
  }

  func testExportIntoAReadOnlyFolderFailsCleanly() throws {
    try makeSpaces()
    _ = try importAll()
    let target = folder + "/locked"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    chmod(target, 0o555)
    var immutable = false
    if geteuid() == 0 {
      // Root ignores permission bits; the immutable attribute stops it.
      immutable = (try? runTool("/usr/bin/chattr", ["+i", target])) == 0
      try require(immutable, "running as root and chattr +i is not available to make a read-only folder")
    }
    defer {
      if immutable { _ = try? runTool("/usr/bin/chattr", ["-i", target]) }
      chmod(target, 0o755)
    }
    let before = try snapshot(vault.vault)
    let run = try vault.run(["export", "1-3", "--to", target])
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(run.stderr.contains(target), run.stderr)
    XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
    XCTAssertEqual(try snapshot(vault.vault), before)
  }

  func testNoPlaintextNameOrPixelsUnderTheVault() throws {
    try makeSpaces()
    _ = try importAll()
    XCTAssertEqual(try vault.run(["select", "1-4"]).status, 0)
    var needles = goodNames.map { Array($0.utf8) }
    needles += goodNames.map { Array(($0 as NSString).deletingPathExtension.utf8) }
    for name in ["photo.jpg", "rgb16.png", "interlaced.png"] {
      let bytes = try fileBytes(photos + "/" + name)
      needles.append(Array(bytes[(bytes.count / 2)..<(bytes.count / 2 + 24)]))
    }
    needles.append(Array("Exif".utf8))
    for (relative, _) in try snapshot(vault.vault) where !relative.hasSuffix("/") {
      let haystack = try fileBytes(vault.vault + "/" + relative)
      for needle in needles {
        XCTAssertFalse(
          contains(haystack, needle), "\(relative) contains \(String(decoding: needle, as: UTF8.self))")
      }
    }
  }

  func testListGridAndUsageErrors() throws {
    try makeSpaces()
    _ = try importAll()
    XCTAssertEqual(try vault.run(["select", "2"]).status, 0)
    let grid = try vault.run(["list", "--per-row", "4"])
    XCTAssertEqual(grid.status, 0, grid.stderr)
    let lines = grid.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    // (100 − 3·2 − 2) / 4 = 23 columns a cell: cells start at columns 1, 26, 51, 76.
    XCTAssertEqual(
      lines[0], " [ ] 1                    [x] 2                    [ ] 3                    [ ] 4")
    XCTAssertTrue(lines.allSatisfy { $0.count <= 100 })
    let tooMany = try vault.run(["list", "--per-row", "30"])
    XCTAssertEqual(tooMany.status, 64, "a usage error, found before the password")
    XCTAssertTrue(tooMany.stderr.contains("--per-row 10 or less"), tooMany.stderr)
    let table = try vault.run(["list"])
    XCTAssertEqual(table.stdout.split(separator: "\n").count, goodNames.count)
    XCTAssertEqual(try vault.run(["delete"]).status, 64)
    XCTAssertEqual(try vault.run(["export", "--all", "--selected"]).status, 64)
    XCTAssertEqual(try vault.run(["add"]).status, 64)
    let help = try vault.run(["--help"], password: nil)
    XCTAssertEqual(help.status, 0)
    for command in ["init", "add", "list", "select", "unselect", "delete", "export"] {
      XCTAssertTrue(help.stdout.contains(command), command)
    }
  }

  func testADamagedIndexPointsToVerifyRepair() throws {
    try makeSpaces()
    _ = try importAll()
    XCTAssertEqual(try vault.run(["verify"]).status, 0)
    let space = try FileManager.default.contentsOfDirectory(atPath: vault.vault).first { name in
      (try? FileManager.default.contentsOfDirectory(atPath: vault.vault + "/" + name + "/Photo").isEmpty)
        == false
    }!
    let journal = vault.vault + "/" + space + "/Journal"
    let snapshot = try FileManager.default.contentsOfDirectory(atPath: journal).first { $0.hasPrefix("s-") }!
    let index = journal + "/" + snapshot
    var bytes = try fileBytes(index)
    bytes[bytes.count / 2] ^= 0xFF
    try Data(bytes).write(to: URL(fileURLWithPath: index))
    let list = try vault.run(["list"])
    XCTAssertEqual(list.status, 1)
    XCTAssertTrue(list.stderr.contains("index") && list.stderr.contains("vault verify --repair"), list.stderr)
    XCTAssertEqual(
      try vault.run(["add", photos + "/photo.jpg"]).status, 1, "nothing is added on a damaged index")
    let verify = try vault.run(["verify", "--quiet"])
    XCTAssertEqual(verify.status, 1)
    XCTAssertTrue(verify.stdout.contains("damaged index"), verify.stdout)
    let repair = try vault.run(["verify", "--repair"])
    XCTAssertEqual(repair.status, 0, repair.stdout + repair.stderr)
    XCTAssertTrue(
      repair.stdout.contains("rebuilt the index from the \(goodNames.count) intact originals"), repair.stdout)
    XCTAssertTrue(
      repair.stderr.contains("the selection was cleared") && repair.stderr.contains("albums made or changed"),
      repair.stderr)
    XCTAssertEqual(try vault.run(["verify"]).status, 0)
    XCTAssertEqual(try listJSON().count, goodNames.count)
  }

  func testInitRefusesAnotherKDFForAnExistingVault() throws {
    try makeSpaces()
    let run = try vault.run(["init", "--kdf", "sensitive"], password: "third")
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(run.stderr.contains("--kdf applies only to a new vault"), run.stderr)
  }

  private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    let first = needle[0]
    var index = 0
    while index <= haystack.count - needle.count {
      if haystack[index] == first && Array(haystack[index..<(index + needle.count)]) == needle { return true }
      index += 1
    }
    return false
  }

  private func runTool(_ path: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }
}
