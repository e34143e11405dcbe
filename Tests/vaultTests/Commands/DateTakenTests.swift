import Foundation
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// When photos were taken, through the built binary: read at import and shown by `list`
/// (table, grid, JSON), `show` and `view`; read for photos imported before vault read them
/// by `verify --repair`, and when `show` or `view` decode their originals.
final class DateTakenTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  func fixtures(_ names: [String]) -> [String] { names.map { fixturesPath + "/" + $0 } }

  /// `list --json`, parsed: one object a photo.
  func listed() throws -> [[String: Any]] {
    try vault.listJSON(["--sort", "imported"])
  }

  func takenDates() throws -> [String?] { try listed().map { $0["taken"] as? String } }

  func testListShowsWhenEachPhotoWasTakenAndJSONGivesItWithItsOffset() throws {
    let names = [
      "taken-offset.jpg", "taken-no-offset.jpg", "taken-garbage.jpg", "taken-hostile.jpg", "taken-exif.png",
      "taken-time.png", "taken.heic", "photo.jpg",
    ]
    let add = try vault.run(["add"] + fixtures(names))
    XCTAssertEqual(add.status, 0, add.stderr)
    let photos = try listed()
    XCTAssertEqual(
      photos.map { $0["taken"] as? String },
      [
        "2024-06-01T14:03:22.25+02:00", "2019-12-31T23:59:59", "2021-07-04T12:00:00", nil,
        "2023-02-28T08:15:00-05:00", "2022-10-09T11:12:13+00:00", "2025-01-15T09:30:45+09:00", nil,
      ])
    XCTAssertEqual(photos[0]["cameraMake"] as? String, "Canon")
    XCTAssertEqual(photos[0]["cameraModel"] as? String, "Canon EOS R5")
    XCTAssertEqual(photos[1]["cameraMake"] as? String, "NIKON CORPORATION")
    XCTAssertEqual(photos[6]["cameraModel"] as? String, "iPhone 15 Pro")
    XCTAssertNil(photos[7]["cameraMake"])
    // The hostile make is kept (cut to 64 bytes) and printed escaped, never raw.
    XCTAssertEqual((photos[3]["cameraMake"] as? String)?.hasPrefix("\u{1B}]0;owned\u{07}"), true)
    let raw = try vault.run(["list", "--sort", "imported", "--json"]).stdout
    XCTAssertFalse(raw.contains("\u{1B}"), "an escape character reached the terminal")

    let table = try vault.run(["list", "--sort", "imported"], environment: ["COLUMNS": "120"]).stdout.split(
      separator: "\n")
    XCTAssertTrue(table[0].hasSuffix(" 2024-06-01 14:03"), "\(table[0])")
    XCTAssertTrue(table[5].hasSuffix(" 2022-10-09 11:12"), "\(table[5])")
    XCTAssertTrue(table[7].hasSuffix("*"), "the import date, marked: \(table[7])")
    let grid = try vault.run(
      ["list", "--sort", "imported", "--per-row", "4"], environment: ["COLUMNS": "100"]
    ).stdout
    XCTAssertTrue(grid.contains("2024-06-01") && grid.contains("2019-12-31"), grid)
  }

  /// Photos stored as vault stored them before it read dates taken.
  func addAsBeforeDates(_ names: [String]) throws {
    try LegacyImport.add(fixtures(names), vault: vault.vault, password: "correct horse")
    XCTAssertEqual(try takenDates(), names.map { _ in nil })
  }

  func testVerifyRepairReadsTheDatesOfPhotosImportedBeforeVaultReadThem() throws {
    try addAsBeforeDates(["taken-offset.jpg", "taken.heic", "photo.jpg", "taken-time.png"])
    let table = try vault.run(["list", "--sort", "imported"]).stdout.split(separator: "\n")
    XCTAssertTrue(table.allSatisfy { $0.hasSuffix("*") }, "\(table)")
    // A plain verify reads and writes nothing of the kind.
    let verify = try vault.run(["verify"])
    XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    XCTAssertEqual(try takenDates(), [nil, nil, nil, nil])

    let repair = try vault.run(["verify", "--repair"])
    XCTAssertEqual(repair.status, 0, repair.stdout + repair.stderr)
    XCTAssertTrue(
      repair.stdout.contains(
        "filled in: read the date taken and camera of 4 photos imported before vault read them (3 give a date)"
      ),
      repair.stdout)
    XCTAssertEqual(
      try takenDates(),
      ["2024-06-01T14:03:22.25+02:00", "2025-01-15T09:30:45+09:00", nil, "2022-10-09T11:12:13+00:00"])
    XCTAssertEqual(try listed()[1]["cameraMake"] as? String, "Apple")
    // Read once: the photo without a date is not read again.
    let again = try vault.run(["verify", "--repair"])
    XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
    XCTAssertFalse(again.stdout.contains("filled in"), again.stdout)
  }

  func testShowReadsTheDateOfAPhotoImportedBeforeVaultReadDates() throws {
    try addAsBeforeDates(["photo.jpg", "taken-exif.png"])
    // The text layout decodes nothing, so reads nothing.
    XCTAssertEqual(try vault.run(["show", "--sort", "imported", "2"]).stdout, "2 taken-exif.png  48×32\n")
    XCTAssertEqual(try takenDates(), [nil, nil])
    let shown = try vault.run([
      "show", "--sort", "imported", "--mode", "symbols", "--width", "12", "--height", "4", "1", "2",
    ])
    XCTAssertEqual(shown.status, 0, shown.stderr)
    XCTAssertTrue(shown.stdout.contains("2 taken-exif.png  48×32  2023-02-28 08:15\n"), shown.stdout)
    XCTAssertEqual(try takenDates(), [nil, "2023-02-28T08:15:00-05:00"])
    XCTAssertEqual(
      try vault.run(["show", "--sort", "imported", "2"]).stdout, "2 taken-exif.png  48×32  2023-02-28 08:15\n"
    )
  }

  func testShowStillShowsWhenAnotherCommandHoldsTheSpace() throws {
    try addAsBeforeDates(["taken-offset.jpg"])
    let space = try XCTUnwrap(try vault.spaceFolders().first)
    let arguments = [
      "show", "--sort", "imported", "--mode", "symbols", "--width", "12", "--height", "4", "1",
    ]
    do {
      // Another reader holds the space (a long `vault export`, say): the details cannot be
      // stored now, and show neither fails nor waits for them (a wait would last as long
      // as the lock is held here, that is for ever).
      let held = try DirectoryLock(path: space, mode: .shared)
      let shown = try vault.run(arguments, environment: ["VAULT_LOCK_WAIT": "1000000"])
      XCTAssertEqual(shown.status, 0, shown.stderr)
      XCTAssertTrue(shown.stdout.contains("1 taken-offset.jpg  48×32  2024-06-01 14:03\n"), shown.stdout)
      XCTAssertEqual(shown.stderr, "")
      withExtendedLifetime(held) {}
    }
    XCTAssertEqual(try takenDates(), [nil])
    XCTAssertEqual(try vault.run(arguments).status, 0)
    XCTAssertEqual(try takenDates(), ["2024-06-01T14:03:22.25+02:00"])
  }

  func testViewReadsTheDateOfAPhotoImportedBeforeVaultReadDatesAndShowsIt() throws {
    try addAsBeforeDates(["photo.jpg", "taken-offset.jpg"])
    let session = try TmuxSession(
      "\(VaultRunner.binary) view 2 --sort imported --mode symbols; echo \"exit status $?\"", in: folder,
      environment: [
        "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
      ], width: 120, height: 40)
    // Once the original is decoded, the status line and the details panel show the date.
    try session.wait(for: "2 / 2  taken-offset.jpg  48×32  2024-06-01 14:03")
    try session.send("i")
    try session.wait(for: "2024-06-01 14:03:22 +02:00")
    try session.wait(for: "Canon EOS R5")
    try session.send("q")
    try session.wait(for: "exit status 0")
    XCTAssertEqual(try takenDates(), [nil, "2024-06-01T14:03:22.25+02:00"])
  }
}

/// Stores photos as vault did before it read dates taken: the original's record without
/// them, and only an `added` entry in the journal (no `details`), as a space imported then
/// holds them when this version opens it.
enum LegacyImport {
  static func add(_ paths: [String], vault: String, password: String) throws {
    let space = try Vault.open(at: vault).unlock(
      password: Password(utf8: Array(password.utf8)), access: .write)
    var records: [PhotoRecord] = []
    for path in paths {
      let bytes = try fileBytes(path)
      let format = try ImageFormat.recognise(Array(bytes.prefix(ImageFormat.signatureLength)), path: path)
      let thumbnail = try Thumbnailer().makeThumbnail(bytes: bytes, name: path, format: format)
      let hasher = ContentHasher(key: space.master.contentHashKey())
      bytes.withUnsafeBytes { hasher.update($0) }
      let record = PhotoRecord(
        id: .random(), name: (path as NSString).lastPathComponent, bytes: Int64(bytes.count), format: format,
        width: thumbnail.width, height: thumbnail.height, orientation: thumbnail.orientation,
        modifiedAt: Timestamp(seconds: 1_600_000_000), importedAt: .now(), contentHash: hasher.finish())
      let photo = try PreparedPhoto(
        record: record,
        decoded: DecodedImport(thumbnail: thumbnail, details: PhotoDetails(), liveIdentifier: nil),
        in: space.blobs, source: path, flusher: nil
      ) {
        try $0.write(bytes)
      }
      try photo.moveIntoPlace(space: space)
      records.append(record)
    }
    let start = Timestamp.now().nanosecondsSince1970
    try JournalSegmentWriter(directory: space.journalDirectory, key: space.master.journalKey()).append(
      records.enumerated().map { .added($1, order: start + Int64($0)) })
  }
}
