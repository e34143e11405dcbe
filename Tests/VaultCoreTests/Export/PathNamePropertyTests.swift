import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Every name that becomes a file or folder name (export's files and album folders, the
/// mount's names, which are the same) is one safe path component whatever the record or
/// journal says: random Unicode from a seeded generator, with the pieces that have broken
/// such checks (a `/` or `..` under a combining mark, NFD, bidirectional controls, NUL,
/// names near 255 bytes). The seed of a failure is in its message.
final class PathNamePropertyTests: XCTestCase {
  static let seeds: ClosedRange<UInt64> = 1...400

  func testExportNamesAreSafeDistinctAndKeptWhereTheyCanBe() {
    for seed in Self.seeds {
      var random = RandomNames(seed: seed)
      let names = random.folderOfNames()
      let records = names.enumerated().map { Self.record(named: $1, number: $0) }
      let exported = PhotoExporter.namesInEmptyFolder(records)
      XCTAssertEqual(exported.count, names.count)
      for (given, name) in zip(names, exported) {
        Self.assertSafe(name, from: given, seed: seed)
      }
      Self.assertDistinct(exported, seed: seed)
      // A name that is safe as it is stays byte for byte, unless a name before took it.
      for index in names.indices where Self.isSafeAsItIs(names[index]) {
        if !exported[..<index].contains(names[index]) {
          XCTAssertEqual(
            Array(exported[index].utf8), Array(names[index].utf8),
            "seed \(seed): \(names[index].debugDescription)")
        }
      }
    }
  }

  func testAlbumFoldersAreSafeAndDistinctIgnoringCase() {
    for seed in Self.seeds {
      var random = RandomNames(seed: seed)
      let albums = random.folderOfNames()
      var photo = PhotoModel(isSelected: false, record: Self.record(named: "a.jpg", number: 0))
      photo.albums = albums
      let folders = AlbumFolders.groups([photo]).map(\.folder)
      // One folder an album name, told apart by bytes (NFC and NFD are two albums).
      XCTAssertEqual(folders.count, Set(albums.map { Array($0.utf8) }).count, "seed \(seed)")
      for folder in folders { Self.assertSafe(folder, from: "an album", seed: seed) }
      XCTAssertEqual(Set(folders.map { $0.lowercased() }).count, folders.count, "seed \(seed): \(folders)")
    }
  }

  /// Names of 250 to 255 bytes made of 1-, 2-, 3- and 4-byte scalars, and of graphemes of
  /// several scalars, twice in one folder: the second keeps " (1)" and ".jpg", within 255
  /// bytes, its name cut between whole graphemes.
  func testNamesNear255BytesAreCutOnGraphemesKeepingSuffixAndExtension() {
    for grapheme in ["a", "é", "€", "📷", "e\u{301}", "👩‍👩‍👧"] {
      for bytes in 250...255 {
        let unit = grapheme.utf8.count
        let padding = String(repeating: "a", count: (bytes - 4) % unit)
        let name = padding + String(repeating: grapheme, count: (bytes - 4) / unit) + ".jpg"
        XCTAssertEqual(name.utf8.count, bytes)
        let records = [Self.record(named: name, number: 0), Self.record(named: name, number: 1)]
        let names = PhotoExporter.namesInEmptyFolder(records)
        XCTAssertEqual(names[0], name)
        XCTAssertTrue(names[1].hasSuffix(" (1).jpg"), names[1])
        XCTAssertLessThanOrEqual(names[1].utf8.count, 255, names[1])
        XCTAssertGreaterThan(names[1].utf8.count, 255 - unit - 8, names[1])
        let stem = String(names[1].dropLast(" (1).jpg".count))
        let kept = stem.utf8.count - padding.utf8.count
        XCTAssertTrue(
          stem.hasPrefix(padding) && kept % unit == 0, "\(grapheme): \(names[1].debugDescription)")
        XCTAssertEqual(stem, padding + String(repeating: grapheme, count: kept / unit))
      }
    }
  }

  // MARK: What every name must be

  static func assertSafe(_ name: String, from given: String, seed: UInt64, line: UInt = #line) {
    let bytes = Array(name.utf8)
    let message = "seed \(seed): \(given.debugDescription) gave \(name.debugDescription)"
    XCTAssertFalse(bytes.isEmpty, message, line: line)
    XCTAssertFalse(bytes == [0x2E] || bytes == [0x2E, 0x2E], message, line: line)
    XCTAssertFalse(bytes.contains(UInt8(ascii: "/")), message, line: line)
    XCTAssertFalse(bytes.contains(0), message, line: line)
    XCTAssertLessThanOrEqual(bytes.count, 255, message, line: line)
    XCTAssertNotNil(String(bytes: bytes, encoding: .utf8), message, line: line)
    XCTAssertFalse(name.unicodeScalars.contains(where: TerminalSafeText.isUnsafe), message, line: line)
    XCTAssertFalse(showsAsDots(name), message, line: line)
  }

  static func assertDistinct(_ names: [String], seed: UInt64, line: UInt = #line) {
    XCTAssertEqual(Set(names.map { Array($0.utf8) }).count, names.count, "seed \(seed): \(names)", line: line)
    // Nor canonically equal (NFC and NFD of one name), which some file systems merge.
    XCTAssertEqual(Set(names).count, names.count, "seed \(seed): \(names)", line: line)
  }

  /// Whether `name` shows as nothing, `.` or `..`: its scalars without marks and
  /// invisible format characters, trimmed of white space.
  static func showsAsDots(_ name: String) -> Bool {
    var shown = String.UnicodeScalarView()
    shown.append(
      contentsOf: name.unicodeScalars.filter {
        ![.nonspacingMark, .enclosingMark, .format].contains($0.properties.generalCategory)
      })
    let trimmed = String(shown).trimmingCharacters(in: .whitespaces)
    return ["", ".", ".."].contains(where: { Array($0.utf8) == Array(trimmed.utf8) })
  }

  /// A name that can be a file's name as it is.
  static func isSafeAsItIs(_ name: String) -> Bool {
    !name.utf8.contains(UInt8(ascii: "/")) && name.utf8.count <= 255 && !showsAsDots(name)
      && !name.unicodeScalars.contains(where: TerminalSafeText.isUnsafe)
  }

  static func record(named name: String, number: Int) -> PhotoRecord {
    PhotoRecord(
      id: BlobID(hex: String(format: "%032x", number))!, name: name, bytes: 1, format: .jpeg, width: 1,
      height: 1, orientation: 1, modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0),
      contentHash: String(repeating: "0", count: 64))
  }
}

/// Names built from pieces that trouble path checks, from a seed.
struct RandomNames {
  var generator: SeededGenerator

  init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

  mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

  mutating func scalar(_ range: ClosedRange<UInt32>) -> String {
    var value = UInt32.random(in: range, using: &generator)
    if (0xD800...0xDFFF).contains(value) { value = 0xFFFD }
    return String(Unicode.Scalar(value)!)
  }

  mutating func pick(_ choices: [String]) -> String { choices.randomElement(using: &generator)! }

  mutating func piece() -> String {
    switch number(0...15) {
    case 0: return "/"
    case 1: return "\0"
    case 2: return pick([".", "..", "../", "/..", " "])
    case 3: return scalar(0x300...0x36F)  // combining marks
    case 4:
      return pick(["\u{E9}", "e\u{301}", "\u{1E69}", "s\u{323}\u{307}", "\u{AC00}", "\u{1100}\u{1161}"])
    case 5: return pick(["\u{200E}", "\u{200F}", "\u{202E}", "\u{202B}", "\u{2066}", "\u{2069}", "\u{61C}"])
    case 6: return scalar(0x5D0...0x5EA) + scalar(0x627...0x64A)  // Hebrew, Arabic
    case 7: return pick([scalar(0x01...0x1F), scalar(0x7F...0x9F), "\u{2028}", "\u{200D}", "\u{FEFF}"])
    case 8: return scalar(0x80...0x10FFFF)  // any plane
    case 9: return scalar(0x10000...0x10FFFF)  // beyond the first plane
    case 10: return pick(["IMG_", "photo", "Trip", "No album", "x"]) + String(number(0...99))
    case 11: return pick([".jpg", ".HEIC", ".mov", ".tar.gz", ".", ".verylongextension-20"])
    case 12: return "\u{600}"  // a prepended mark: joins what follows into its grapheme
    default:
      let unit = pick(["a", "\u{E9}", "\u{20AC}", "📷", "👩‍👩‍👧", "e\u{301}\u{302}", "/\u{301}", ".\u{301}"])
      return String(repeating: unit, count: number(1...140))
    }
  }

  mutating func name() -> String {
    switch number(0...9) {
    case 0: return pick(["", ".", "..", "..\u{301}", "../\u{301}x", ". .", " .. ", "\u{301}", "\u{200B}"])
    default: return (0..<number(1...8)).map { _ in piece() }.joined()
    }
  }

  /// Names for one folder, some given twice or in the other normalization form.
  mutating func folderOfNames() -> [String] {
    var names: [String] = []
    for _ in 0..<number(1...12) {
      if !names.isEmpty && number(0...3) == 0 {
        let earlier = pick(names)
        names.append(
          pick([
            earlier, earlier.decomposedStringWithCanonicalMapping,
            earlier.precomposedStringWithCanonicalMapping,
          ]))
      } else {
        names.append(name())
      }
    }
    return names
  }
}
