import Foundation
import XCTest

/// One number per photo everywhere (issue 19, item 1): every photo number a command prints
/// is the number `vault list` shows for the same photo given the same options. A property
/// test over photos with random dates imported in random order, through the built binary.
/// A failing round prints its seed; `VAULT_TEST_SEED=<seed>` replays it.
final class PhotoNumberingTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  /// A PNG (Fixtures/gray.png) taken at `date` (a `tIME` chunk, UTC), made distinct and of
  /// its own size by `padding` bytes of text.
  func datedPNG(_ date: DateComponents, padding: Int, tag: Int) throws -> [UInt8] {
    let png = try fileBytes(fixturesPath + "/gray.png")
    let year = UInt16(date.year!)
    let time: [UInt8] =
      [UInt8(year >> 8), UInt8(year & 0xFF)]
      + [date.month!, date.day!, date.hour!, date.minute!, 0].map { UInt8($0) }
    let text = Array("Comment\u{0}photo \(tag) ".utf8) + [UInt8](repeating: 0x61, count: padding)
    // After the signature and IHDR (8 + 25 bytes).
    return Array(png[0..<33]) + pngChunk("tIME", time) + pngChunk("tEXt", text) + Array(png[33...])
  }

  func pngChunk(_ kind: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(kind.utf8) + data
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in body {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    crc ^= 0xFFFF_FFFF
    let be = { (v: UInt32) in [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    return be(UInt32(data.count)) + body + be(crc)
  }

  func run(_ arguments: [String], status: Int32? = 0, file: StaticString = #filePath, line: UInt = #line)
    throws
    -> VaultRun
  {
    let result = try vault.run(arguments, environment: ["COLUMNS": "200"])
    if let status {
      XCTAssertEqual(
        result.status, status, "\(arguments): \(result.stdout)\(result.stderr)", file: file, line: line)
    }
    return result
  }

  /// `list --json` with `scope`: photo number → (id, name).
  func listed(_ scope: [String]) throws -> [Int: (id: String, name: String)] {
    let list = try run(["list", "--json"] + scope)
    let items = try VaultRunner.jsonObjects(list.stdout)
    var numbers: [Int: (id: String, name: String)] = [:]
    for item in items { numbers[item["index"] as! Int] = (item["id"] as! String, item["name"] as! String) }
    return numbers
  }

  /// Imports `count` photos with random dates (one without a date) and random names, one
  /// `add` each in a random order; returns their names in import order.
  func addRandomPhotos(_ count: Int, using random: inout SeededGenerator) throws -> [String] {
    let photos = folder + "/in"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    var names: [String] = []
    for tag in 0..<count {
      let name = String(
        format: "%c%02d.png", Int(UInt8(ascii: "a")) + Int.random(in: 0..<26, using: &random), tag)
      let date = DateComponents(
        year: Int.random(in: 2001...2025, using: &random), month: Int.random(in: 1...12, using: &random),
        day: Int.random(in: 1...28, using: &random), hour: Int.random(in: 0...23, using: &random),
        minute: Int.random(in: 0...59, using: &random))
      var bytes = try datedPNG(date, padding: Int.random(in: 0..<4000, using: &random), tag: tag)
      if tag == 0 { bytes = try fileBytes(fixturesPath + "/gray.png") + [UInt8(count)] }  // undated
      try writeBytes(bytes, to: photos + "/" + name)
      names.append(name)
    }
    names.shuffle(using: &random)
    for name in names { _ = try run(["add", "--quiet", photos + "/" + name]) }
    return names
  }

  /// Checks the numbers in `text` (`pattern`'s first group; the name is its second)
  /// against `expected`, from `list --json` with the same options; `what` names the
  /// command in failures.
  func check(
    _ text: String, _ pattern: String, against expected: [Int: (id: String, name: String)], what: String,
    seed: UInt64, atLeast: Int = 1, file: StaticString = #filePath, line: UInt = #line
  ) {
    let regex = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
    let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
    XCTAssertGreaterThanOrEqual(
      matches.count, atLeast, "seed \(seed): \(what) printed too few numbers:\n\(text)", file: file,
      line: line)
    for match in matches {
      let number = Int((text as NSString).substring(with: match.range(at: 1)))!
      let name = (text as NSString).substring(with: match.range(at: 2))
      XCTAssertEqual(
        expected[number]?.name, name,
        "seed \(seed): \(what) gives '\(name)' number \(number), list gives it to \(expected[number]?.name ?? "nothing"):\n\(text)",
        file: file, line: line)
    }
  }

  func testEveryCommandNumbersAPhotoAsListDoes() throws {
    let seed =
      ProcessInfo.processInfo.environment["VAULT_TEST_SEED"].flatMap(UInt64.init)
      ?? UInt64.random(in: 1...UInt64.max >> 1)
    print("PhotoNumberingTests seed: \(seed) (VAULT_TEST_SEED=\(seed) replays it)")
    var random = SeededGenerator(seed: seed)
    for round in 0..<2 {
      folder = try makeTemporaryFolder(self)
      vault = try VaultRunner.initialized(in: folder)
      try checkRound(seed: seed, round: round, using: &random)
    }
  }

  func checkRound(seed: UInt64, round: Int, using random: inout SeededGenerator) throws {
    _ = try addRandomPhotos(5, using: &random)
    let all = try listed([])
    XCTAssertEqual(all.count, 5)
    // An album of three photos, named by id.
    let members = Array(all.values.map(\.id).shuffled(using: &random).prefix(3))
    _ = try run(["album", "new", "A"])
    _ = try run(["album", "add", "A"] + members)
    // One damaged original, for verify to name.
    let victim = all[Int.random(in: 1...5, using: &random)]!
    let space = try XCTUnwrap(vault.spaceFolders().first)
    var bytes = try fileBytes(space + "/Photo/" + victim.id)
    bytes[35] ^= 0x04  // in the first chunk, after the blob's prefix and stream header
    try writeBytes(bytes, to: space + "/Photo/" + victim.id)

    let verify = try run(["verify"], status: 1)
    check(
      verify.stdout, #"^(?:ok|damaged original): (\d+) (\S+)"#, against: all, what: "verify", seed: seed,
      atLeast: 5)
    XCTAssertTrue(
      verify.stdout.contains("damaged original: ") && verify.stdout.contains(victim.id), verify.stdout)
    // The hint that deletes names the photo by id and name, never by number alone.
    XCTAssertTrue(
      verify.stderr.contains("'vault delete --now \(victim.id)'"), "seed \(seed): \(verify.stderr)")
    XCTAssertTrue(verify.stderr.contains("'\(victim.name)'"), "seed \(seed): \(verify.stderr)")
    XCTAssertNil(
      verify.stderr.range(of: #"vault delete \d{1,5}'"#, options: .regularExpression), verify.stderr)

    let since = String(format: "%04d-01-01", Int.random(in: 2005...2020, using: &random))
    let sorts = [["--sort", "name"], ["--sort", "imported"], ["--sort", "size"], []]
    // Few enough to stay quick; the sorts change from round to round.
    let scopes: [[String]] = [
      [], ["--album", "A"], ["--since", since], sorts[round % 3],
      ["--album", "A"] + sorts[(round + 1) % 4], ["--since", since] + sorts[(round + 2) % 4],
    ]
    for scope in scopes {
      let expected = try listed(scope)
      let what = "(\(scope.joined(separator: " ")), round \(round))"
      guard !expected.isEmpty else { continue }
      let show = try run(["show", "--all", "--mode", "text"] + scope)
      check(
        show.stdout, #"^(\d+) (\S+)  \d+×\d+"#, against: expected, what: "show " + what, seed: seed,
        atLeast: expected.count)
      let dryRun = try run(["delete", "--all", "--dry-run"] + scope)
      check(
        dryRun.stdout, #"^ +(\d+) (\S+)$"#, against: expected, what: "delete --dry-run " + what, seed: seed,
        atLeast: expected.count)
      // One cell a row: a number's line, then its name's.
      let grid = try run(["list", "--per-row", "1", "--mode", "text"] + scope)
      check(
        grid.stdout, #"\[[ x]\] (\d+)\n +(\S+)"#, against: expected, what: "list grid " + what, seed: seed,
        atLeast: expected.count)
      // A number past the end names the list's own count.
      let past = try run(["show", "99"] + scope, status: 1)
      XCTAssertTrue(
        past.stderr.contains("photos are numbered 1 to \(expected.count)"),
        "seed \(seed) \(what): \(past.stderr)")
      // Selecting by number selects the photo list shows under that number.
      let number = Int.random(in: 1...expected.count, using: &random)
      let select = try run(["select", String(number)] + scope)
      XCTAssertTrue(
        select.stdout.hasPrefix("1 of \(expected.count) photo"), "seed \(seed) \(what): \(select.stdout)")
      let chosen = try run(["list", "--selected", "--json"] + scope)
      XCTAssertTrue(chosen.stdout.contains(expected[number]!.id), "seed \(seed) \(what): selected \(number)")
      _ = try run(["select", "--none"])
    }
  }

  /// The issue's report: three photos whose dates differ from their import order, one
  /// original damaged. Following verify's hint deletes that photo, not another; verify is
  /// then intact.
  func testFollowingVerifysHintDeletesTheDamagedPhotoOnly() throws {
    vault = try VaultRunner.initialized(in: folder)
    let photos = folder + "/in"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    // Imported newest first: by date taken, the last imported is photo 1.
    for (tag, year) in [2024, 2010, 2001].enumerated() {
      let name = "y\(year).png"
      try writeBytes(
        try datedPNG(
          DateComponents(year: year, month: 6, day: 1, hour: 12, minute: 0), padding: tag, tag: tag),
        to: photos + "/" + name)
      _ = try run(["add", "--quiet", photos + "/" + name])
    }
    let all = try listed([])
    XCTAssertEqual(all[1]?.name, "y2001.png")
    let victim = try XCTUnwrap(all[3])
    XCTAssertEqual(victim.name, "y2024.png")
    let space = try XCTUnwrap(vault.spaceFolders().first)
    var bytes = try fileBytes(space + "/Photo/" + victim.id)
    bytes[35] ^= 0x04
    try writeBytes(bytes, to: space + "/Photo/" + victim.id)

    let verify = try run(["verify"], status: 1)
    XCTAssertTrue(verify.stdout.contains("damaged original: 3 y2024.png (Photo/\(victim.id))"), verify.stdout)
    XCTAssertTrue(verify.stdout.contains("ok: 1 y2001.png"), verify.stdout)
    let hint = try XCTUnwrap(verify.stderr.split(separator: "\n").first { $0.contains("vault delete") })
    XCTAssertEqual(
      String(hint),
      "hint: restore 'y2024.png' (photo 3, id \(victim.id)) from a backup, or remove it with 'vault delete --now \(victim.id)'"
    )
    // Following the hint.
    let command = try XCTUnwrap(hint.split(separator: "'").first { $0.hasPrefix("vault delete ") })
    let delete = try run(command.split(separator: " ").dropFirst().map(String.init) + ["--yes"])
    XCTAssertEqual(delete.stdout, "deleted 'y2024.png'\ndeleted 1 photo for good; 2 left\n")
    XCTAssertEqual(try listed([]).values.map(\.name).sorted(), ["y2001.png", "y2010.png"])
    _ = try run(["verify"])
  }

  /// `verify --repair` keeps a photo whose original is gone listed (a sync may bring it);
  /// its hint names the photo by id, and following it deletes that photo alone.
  func testFollowingRepairsHintForAMissingOriginalDeletesThatPhotoOnly() throws {
    vault = try VaultRunner.initialized(in: folder)
    for name in ["gray.png", "photo.jpg", "palette.png"] {
      _ = try run(["add", "--quiet", fixturesPath + "/" + name])
    }
    let all = try listed([])
    let victim = try XCTUnwrap(all.values.first { $0.name == "photo.jpg" })
    let space = try XCTUnwrap(vault.spaceFolders().first)
    try FileManager.default.removeItem(atPath: space + "/Photo/" + victim.id)

    let repair = try run(["verify", "--repair"], status: 1)
    let line = try XCTUnwrap(repair.stdout.split(separator: "\n").first { $0.hasPrefix("not repaired:") })
    XCTAssertTrue(line.contains("'photo.jpg' (id \(victim.id))"), String(line))
    let command = try XCTUnwrap(line.split(separator: "'").first { $0.hasPrefix("vault delete ") })
    XCTAssertEqual(String(command), "vault delete --now \(victim.id)")
    let delete = try run(command.split(separator: " ").dropFirst().map(String.init) + ["--yes"])
    XCTAssertEqual(delete.stdout, "deleted 'photo.jpg'\ndeleted 1 photo for good; 2 left\n")
    XCTAssertEqual(try listed([]).values.map(\.name).sorted(), ["gray.png", "palette.png"])
  }
}
