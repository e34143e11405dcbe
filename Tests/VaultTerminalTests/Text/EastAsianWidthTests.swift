import XCTest

@testable import VaultTerminal

/// Display width from Unicode's East Asian Width (through utf8proc), where vault's own table
/// was wrong: the vertical forms and small form variants are wide, and the symbols from
/// U+1F321 that are not emoji by default are narrow. The expected widths are those of
/// EastAsianWidth.txt (W or F: two columns; N or A: one).
final class EastAsianWidthTests: XCTestCase {
  func testVerticalFormsAndSmallFormVariantsAreWide() {
    let ranges: [ClosedRange<UInt32>] = [0xFE10...0xFE19, 0xFE50...0xFE6B]
    for value in ranges.joined() {
      let scalar = Unicode.Scalar(value)!
      // U+FE53 and U+FE67 are not assigned.
      if scalar.properties.generalCategory == .unassigned { continue }
      XCTAssertEqual(DisplayWidth.of(Character(scalar)), 2, String(value, radix: 16))
    }
  }

  func testSymbolsThatAreNotEmojiByDefaultAreNarrow() {
    // THERMOMETER, the weather symbols after it, HOT PEPPER, FORK AND KNIFE WITH PLATE,
    // the medals and film symbols, the sports and buildings, DOVE OF PEACE, the couch:
    // East Asian Width N, drawn one column wide unless followed by U+FE0F.
    let narrow: [UInt32] = [
      0x1F321, 0x1F322, 0x1F32C, 0x1F336, 0x1F37D, 0x1F394, 0x1F39F, 0x1F3CB, 0x1F3CE, 0x1F3D4, 0x1F54A,
      0x1F6C6, 0x1F6CB,
    ]
    for value in narrow {
      XCTAssertEqual(DisplayWidth.of(Character(Unicode.Scalar(value)!)), 1, String(value, radix: 16))
    }
    // CYCLONE, ROCKET and others around them stay wide (W).
    for value: UInt32 in [0x1F300, 0x1F320, 0x1F32D, 0x1F680, 0x1F6CC, 0x1F90C, 0x1FA70] {
      XCTAssertEqual(DisplayWidth.of(Character(Unicode.Scalar(value)!)), 2, String(value, radix: 16))
    }
  }

  func testEmojiPresentationAndJoinedSequencesStayWide() {
    XCTAssertEqual(DisplayWidth.of("\u{1F321}\u{FE0F}"), 2, "a thermometer asked for as an emoji")
    XCTAssertEqual(DisplayWidth.of("\u{2764}\u{FE0F}"), 2, "a red heart")
    XCTAssertEqual(DisplayWidth.of("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"), 2, "a family")
    XCTAssertEqual(DisplayWidth.of("\u{1F44D}\u{1F3FD}"), 2, "a thumb with a skin tone")
    XCTAssertEqual(DisplayWidth.of("\u{2764}"), 1, "a heart as text")
  }
}
