import Foundation
import VaultTestSupport
import XCTest

/// Every character beyond ASCII that the viewer and the grid print is one the default fonts
/// draw: DejaVu Sans Mono (fonts-dejavu-core, which fontconfig on Debian installs), whose
/// glyphs kitty and xterm find however they are set up. ⏸ is in no font Debian installs by
/// default: kitty and xterm drew it as a box.
final class StatusGlyphTests: XCTestCase {
  static let fcList = "/usr/bin/fc-list"
  static let defaultFont = "DejaVu Sans Mono"

  func testEveryCharacterTheViewerPrintsIsInTheDefaultFont() throws {
    try requireTool(Self.fcList)
    try require(
      !fontsCovering("A").isEmpty, "\(Self.defaultFont) is not installed; scripts/deps.sh installs it")
    let printed = try printedCharacters(under: projectPath + "/Sources/VaultTerminal")
    XCTAssertTrue(printed.keys.contains("▶"), "the scan found no status glyph: \(printed.keys.sorted())")
    for (character, file) in printed.sorted(by: { $0.key < $1.key }) {
      XCTAssertFalse(
        try fontsCovering(character).isEmpty,
        "\(character) (U+\(hex(character)), in \(file)) is not in \(Self.defaultFont): terminals draw a box")
    }
  }

  /// The characters beyond ASCII in the string literals of the Swift files under `folder`
  /// (comments left out), each with a file it is in.
  private func printedCharacters(under folder: String) throws -> [Character: String] {
    var found: [Character: String] = [:]
    let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    for file in files where file.hasSuffix(".swift") {
      let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
      for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
      {
        let literals = line.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
          .filter { $0.offset % 2 == 1 }.map(\.element)
        for literal in literals {
          for character in literal where !character.isASCII { found[character] = file }
        }
      }
    }
    return found
  }

  private func hex(_ character: Character) -> String {
    character.unicodeScalars.map { String($0.value, radix: 16, uppercase: true) }.joined(separator: "+")
  }

  /// The styles of the default font that have `character`.
  private func fontsCovering(_ character: Character) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.fcList)
    process.arguments = [":family=\(Self.defaultFont):charset=\(hex(character))", "style"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
