import Foundation
import XCTest

/// `vault album`, `--album`/`--since`/`--until`/`--sort` on the photo commands, `add
/// --album` and `export --by-album`, through the built binary.
final class AlbumCommandTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  /// In import order; sizes 228, 1 1xx, 1 5xx, 131 bytes.
  let fixtures = ["gray.png", "photo.jpg", "rgba.png", "palette.png"]

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", "-q"] + fixtures.map { fixturesPath + "/" + $0 }).status, 0)
  }

  @discardableResult
  func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> VaultRun {
    let run = try vault.run(arguments)
    XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)", file: file, line: line)
    return run
  }

  /// Every listed photo's name and albums, as `list --json` gives them with `arguments`.
  func listed(_ arguments: [String] = []) throws -> [String] {
    let run = try self.run(["list", "--json"] + arguments)
    let objects = try VaultRunner.jsonObjects(run.stdout)
    return objects.map { object in
      let albums = object["albums"] as? [String] ?? ["?"]
      return "\(object["index"] ?? "?") \(object["name"] ?? "?")"
        + (albums.isEmpty ? "" : " " + albums.joined(separator: ","))
    }
  }

  func testAlbumsAreMadeFilledListedRenamedAndDeleted() throws {
    XCTAssertEqual(try run(["album", "list"]).stdout, "no albums in this space\n")
    XCTAssertEqual(try run(["album", "new", "Trip"]).stdout, "made album 'Trip'\n")
    XCTAssertEqual(
      try run(["album", "add", "Trip", "1", "3-4"]).stdout, "added 3 photos to album 'Trip'; it holds 3\n")
    XCTAssertEqual(
      try run(["album", "add", "Trip", "3", "2"]).stdout,
      "added 1 photo to album 'Trip' (1 was in it already); it holds 4\n")
    // Numbers in remove count within the album: 2 of Trip (by name) is palette.png.
    XCTAssertEqual(
      try run(["album", "remove", "Trip", "2", "--sort", "name"]).stdout,
      "removed 1 photo from album 'Trip'; it holds 3\n")
    XCTAssertEqual(try run(["album", "new", "Été"]).stdout, "made album 'Été'\n")
    XCTAssertEqual(try run(["album", "add", "E\u{301}te\u{301}", "--all"]).status, 0)
    XCTAssertEqual(
      try listed(),
      ["1 gray.png Trip,Été", "2 photo.jpg Trip,Été", "3 rgba.png Trip,Été", "4 palette.png Été"])
    let table = try run(["album", "list"]).stdout
    XCTAssertEqual(
      table.split(separator: "\n").map { $0.split(separator: " ").prefix(3).joined(separator: " ") },
      ["Trip 3 photos", "Été 4 photos"], table)
    XCTAssertTrue(table.contains("newest ") && table.contains("rgba.png\n"), table)
    let json = try run(["album", "list", "--json"]).stdout
    let albums = try VaultRunner.jsonObjects(json)
    XCTAssertEqual(albums.map { $0["name"] as? String }, ["Trip", "Été"])
    XCTAssertEqual(albums.map { $0["count"] as? Int }, [3, 4])
    XCTAssertEqual(
      albums.map { ($0["newest"] as? [String: Any])?["name"] as? String }, ["rgba.png", "palette.png"])

    XCTAssertEqual(
      try run(["album", "rename", "Trip", "Trip 2024"]).stdout, "renamed album 'Trip' to 'Trip 2024'\n")
    XCTAssertEqual(
      try listed(["--album", "Trip 2024"]),
      ["1 gray.png Trip 2024,Été", "2 photo.jpg Trip 2024,Été", "3 rgba.png Trip 2024,Été"])
    XCTAssertEqual(
      try run(["album", "delete", "Trip 2024"]).stdout,
      "deleted album 'Trip 2024'; its 3 photos stay in the space\n")
    XCTAssertEqual(
      try listed(), ["1 gray.png Été", "2 photo.jpg Été", "3 rgba.png Été", "4 palette.png Été"])
  }

  /// A name that differs from an album's in case alone finds that album (`greece` typed in
  /// view's grid used to make a second album beside "Greece"), and makes no other; a
  /// change of case alone is a rename, and the same name again says there is nothing to do.
  func testAlbumNamesAreFoundWhateverTheirCase() throws {
    try run(["album", "new", "Greece"])
    let again = try vault.run(["album", "new", "greece"])
    XCTAssertEqual(again.status, 1)
    XCTAssertEqual(again.stderr, "error: an album named 'Greece' exists already\n")
    XCTAssertEqual(
      try run(["album", "add", "GREECE", "1-2"]).stdout, "added 2 photos to album 'Greece'; it holds 2\n")
    XCTAssertEqual(
      try run(["add", "--album", "greece", fixturesPath + "/gray.png"]).stdout.split(separator: "\n").last,
      "put 0 photos in album 'Greece' (1 was in it already)")
    XCTAssertEqual(try listed(["--album", "greece"]), ["1 gray.png Greece", "2 photo.jpg Greece"])
    XCTAssertEqual(
      try run(["album", "remove", "greece", "2"]).stdout, "removed 1 photo from album 'Greece'; it holds 1\n")
    XCTAssertEqual(
      try run(["album", "rename", "greece", "GREECE"]).stdout, "renamed album 'Greece' to 'GREECE'\n")
    let same = try vault.run(["album", "rename", "GREECE", "GREECE"])
    XCTAssertEqual(same.status, 1)
    XCTAssertEqual(same.stderr, "error: the album 'GREECE' has that name already\n")
    try run(["album", "new", "Crete"])
    let taken = try vault.run(["album", "rename", "crete", "greece"])
    XCTAssertEqual(taken.stderr, "error: an album named 'GREECE' exists already\n")
    XCTAssertEqual(
      try run(["album", "list"]).stdout.split(separator: "\n").map { $0.split(separator: " ").first ?? "" },
      ["Crete", "GREECE"])
  }

  /// Every bad input: one error line, a non-zero status, and the vault exactly as it was.
  func testBadNamesDatesAndUnknownAlbumsChangeNothing() throws {
    try run(["album", "new", "Trip"])
    let before = try snapshot(vault.vault)
    let long = String(repeating: "x", count: 101)
    let cases: [([String], Int32, String)] = [
      (["album", "new", "Trip"], 1, "error: an album named 'Trip' exists already"),
      (["album", "new", ""], 64, "error: album name '' is not usable: an album name cannot be empty"),
      (
        ["album", "new", long], 64, "is not usable: it is 101 characters long; an album name has at most 100"
      ),
      (
        ["album", "new", "a\u{1B}[2Jb"], 64,
        "error: album name 'a\\x1b[2Jb' is not usable: it holds a control character"
      ),
      (["album", "new", "2024/06"], 64, "it holds a '/' (albums become folders on export)"),
      // 80 characters, 320 bytes: too long for a folder's name (export --by-album stopped).
      (
        ["album", "new", String(repeating: "📷", count: 80)], 64,
        "it takes 320 bytes in UTF-8; an album name takes at most 255"
      ),
      (["album", "rename", "Nope", "Other"], 1, "error: no album is named 'Nope'"),
      (["album", "rename", "Trip", "Trip"], 1, "error: the album 'Trip' has that name already"),
      (["album", "delete", "Nope"], 1, "error: no album is named 'Nope'"),
      (["album", "add", "Nope", "1"], 1, "error: no album is named 'Nope'"),
      (["album", "add", "Trip", "9"], 1, "error: there is no photo 9: photos are numbered 1 to 4"),
      (["album", "remove", "Trip", "1"], 1, "error: there is no photo 1: the space is empty"),
      (["album", "remove", "Trip", "--all", "--album", "Trip"], 64, "leave out --album"),
      (["list", "--album", "Nope"], 1, "error: no album is named 'Nope'"),
      (["delete", "--all", "--album", "Nope", "--yes"], 1, "error: no album is named 'Nope'"),
      (
        ["export", "--all", "--album", "Nope", "--to", folder + "/out"], 1, "error: no album is named 'Nope'"
      ),
      (
        ["list", "--since", "2024-02-30"], 64,
        "error: '2024-02-30' is not a date: month 2 of 2024 has 29 days"
      ),
      (
        ["select", "--all", "--until", "yesterday"], 64,
        "is not a date: write it as YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]"
      ),
      (["delete", "--all", "--yes", "--since", "2024-06-01T25:00"], 64, "hours run from 00 to 23"),
      (["list", "--since", "2024-06-02", "--until", "2024-06-01"], 64, "no photo can be in between"),
      (["list", "--sort", "colour"], 64, "colour"),
      (["add", "--album", " Trip", fixturesPath + "/gray.jpg"], 64, "it begins or ends with a space"),
    ]
    for (arguments, status, message) in cases {
      let run = try vault.run(arguments)
      XCTAssertEqual(run.status, status, "\(arguments): \(run.stderr)")
      let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
      XCTAssertEqual(errors.count, 1, "\(arguments): \(run.stderr)")
      XCTAssertTrue(errors.first?.contains(message) == true, "\(arguments): \(run.stderr)")
      XCTAssertEqual(run.stdout, "", "\(arguments)")
    }
    XCTAssertEqual(try snapshot(vault.vault), before)
    XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/out"))
  }

  func testNumbersArePlacesInTheScopedSortedListOfEveryCommand() throws {
    try run(["album", "new", "Two"])
    try run(["album", "add", "Two", "2", "4"])
    // By size: palette (131 B), gray (228 B), photo, rgba.
    XCTAssertEqual(
      try listed(["--sort", "size"]), ["1 palette.png Two", "2 gray.png", "3 photo.jpg Two", "4 rgba.png"])
    XCTAssertEqual(
      try listed(["--sort", "name"]).map { String($0.prefix(13)) },
      ["1 gray.png", "2 palette.png", "3 photo.jpg T", "4 rgba.png"])
    XCTAssertEqual(
      try listed(["--album", "Two", "--sort", "name"]), ["1 palette.png Two", "2 photo.jpg Two"])
    // select and show take the same options and so the same numbers.
    XCTAssertEqual(
      try run(["select", "2", "--album", "Two", "--sort", "name"]).stdout,
      "1 of 2 photos in album 'Two' selected\n")
    XCTAssertEqual(
      try run(["show", "--selected", "--mode", "text", "--album", "Two"]).stdout, "1 photo.jpg  64×48\n")
    XCTAssertEqual(
      try run(["show", "1", "--mode", "text", "--sort", "size"]).stdout, "1 palette.png  32×24\n")
    // Dates: the photos have no date taken, so their import day counts (the binary runs
    // in UTC, as --json's times are).
    let list = try run(["list", "--json"]).stdout
    let imported = try VaultRunner.jsonObjects(list)
    let today = String((imported.last?["importedAt"] as? String ?? "").prefix(10))
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd"
    formatter.timeZone = TimeZone(identifier: "UTC")
    let tomorrow = formatter.string(from: formatter.date(from: today)!.addingTimeInterval(86_400))
    XCTAssertEqual(try listed(["--since", today]).count, 4)
    XCTAssertEqual(try listed(["--until", today]).count, 4)
    XCTAssertEqual(try run(["list", "--since", tomorrow]).stdout, "no photos to list from \(tomorrow)\n")
    XCTAssertEqual(
      try run(["list", "--until", "2000-01-01", "--album", "Two"]).stdout,
      "no photos to list in album 'Two' to 2000-01-01\n")
    // export and delete too; delete --all with an album deletes only its photos.
    let exported = try run(["export", "1", "--album", "Two", "--to", folder + "/one"])
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder + "/one"), ["photo.jpg"], exported.stdout)
    XCTAssertTrue(
      try run(["delete", "--all", "--album", "Two", "--yes"]).stdout.hasSuffix(
        "'\nmoved 2 photos to Recently Deleted (kept 30 days); 2 left\n"))
    XCTAssertEqual(try listed(), ["1 gray.png", "2 rgba.png"])
    XCTAssertTrue(try run(["album", "list"]).stdout.hasPrefix("Two  0 photos\n"))
  }

  /// An empty album, or dates that take no photo, is said to be empty, not the space.
  func testAnEmptyAlbumIsNotAnEmptySpace() throws {
    try run(["album", "new", "Empty"])
    let show = try vault.run(["show", "--all", "--album", "Empty"])
    XCTAssertEqual(show.status, 1)
    XCTAssertEqual(show.stderr, "error: no photos in album 'Empty' (nothing to do for showing)\n")
    let export = try vault.run(["export", "--all", "--since", "2090-01-01", "--to", folder + "/out"])
    XCTAssertEqual(export.status, 1)
    XCTAssertTrue(
      export.stderr.hasPrefix("error: no photos from 2090-01-01 (nothing to do for"), export.stderr)
    XCTAssertEqual(
      try run(["album", "delete", "Empty"]).stdout, "deleted album 'Empty'; its 0 photos stay in the space\n")
  }

  /// Deleting photos chosen within an album takes them out of the whole space: the
  /// question on a terminal says so, and names what would keep them.
  func testDeletingWithinAnAlbumSaysThePhotosLeaveTheWholeSpace() throws {
    try run(["album", "new", "Trip"])
    try run(["album", "add", "Trip", "1-2"])
    let session = try TmuxSession(
      "\(VaultRunner.binary) delete --album Trip --all; echo \"exit status $?\"", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"], width: 200, height: 10)
    try session.wait(
      for:
        "Move 2 photos from the space and every album (to take them out of 'Trip' only: vault album remove) to Recently Deleted (kept 30 days)?"
    )
    try session.send("n", "Enter")
    try session.wait(for: "exit status 0")
    XCTAssertEqual(try listed().count, 4)
  }

  func testAddIntoAnAlbumMakesItAndTakesTheDuplicatesToo() throws {
    let add = try run(["add", "--album", "Card", fixturesPath + "/gray.png", fixturesPath + "/gray.jpg"])
    XCTAssertTrue(
      add.stdout.hasSuffix(
        "added 1 photo, skipped 1 duplicate, failed 0\nmade album 'Card'; put 2 photos in album 'Card'\n"),
      add.stdout)
    XCTAssertEqual(try listed(["--album", "Card"]), ["1 gray.png Card", "2 gray.jpg Card"])
    let again = try run(["add", "--album", "Card", fixturesPath + "/gray.png"])
    XCTAssertTrue(
      again.stdout.hasSuffix("put 0 photos in album 'Card' (1 was in it already)\n"), again.stdout)
  }

  /// --move removes a duplicate's file before the album is filled: the duplicate is found
  /// by its content hash (it was looked up by reading the file again, which had gone).
  func testAddMoveIntoAnAlbumTakesTheDuplicatesWhoseFilesItRemoved() throws {
    let card = folder + "/card"
    try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: true)
    for name in ["gray.png", "gray.jpg"] {
      try FileManager.default.copyItem(atPath: fixturesPath + "/" + name, toPath: card + "/" + name)
    }
    let add = try run(["add", "--move", "--album", "Card", card])
    XCTAssertTrue(add.stdout.contains("made album 'Card'; put 2 photos in album 'Card'\n"), add.stdout)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: card), [])
    XCTAssertEqual(
      try listed(["--album", "Card", "--sort", "name"]), ["1 gray.jpg Card", "2 gray.png Card"])
  }

  func testExportByAlbumWritesAFolderPerAlbumAndOneForTheRest() throws {
    try run(["album", "new", "Trip"])
    try run(["album", "new", "Family"])
    try run(["album", "add", "Trip", "1", "2"])
    try run(["album", "add", "Family", "2"])
    let target = folder + "/out"
    let export = try run(["export", "--all", "--by-album", "--to", target, "-q"])
    XCTAssertEqual(export.stdout, "exported 5 photos to \(target) in 3 folders\n")
    let contents = { (path: String) in
      try FileManager.default.contentsOfDirectory(atPath: target + path).sorted()
    }
    XCTAssertEqual(try contents(""), ["Family", "No album", "Trip"])
    XCTAssertEqual(try contents("/Trip"), ["gray.png", "photo.jpg"])
    XCTAssertEqual(try contents("/Family"), ["photo.jpg"])
    XCTAssertEqual(try contents("/No album"), ["palette.png", "rgba.png"])
    for name in ["Trip/gray.png", "Family/photo.jpg", "No album/rgba.png"] {
      let fixture = fixturesPath + "/" + name.split(separator: "/").last!
      XCTAssertEqual(sha256(try fileBytes(target + "/" + name)), sha256(try fileBytes(fixture)), name)
    }
    // With --album, only that album's folder.
    let only = try run([
      "export", "--all", "--by-album", "--album", "Family", "--to", folder + "/family", "-q",
    ])
    XCTAssertEqual(only.stdout, "exported 1 photo to \(folder)/family in 1 folder\n")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/family"), ["Family"])
  }
}
