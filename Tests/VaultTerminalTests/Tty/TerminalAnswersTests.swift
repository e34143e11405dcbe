import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// The probe's answers as real terminals gave them (recorded under Xvfb and in tmux,
/// November 2026), and input that is no answer.
final class TerminalAnswersTests: XCTestCase {
  func read(_ text: String, split: Bool = false) -> TerminalAnswerReader {
    var reader = TerminalAnswerReader()
    // Fed a byte at a time too: answers come in pieces.
    if split {
      for byte in Array(text.utf8) { reader.feed([byte]) }
    } else {
      reader.feed(Array(text.utf8))
    }
    return reader
  }

  /// xterm 379 started as `xterm -ti vt340`: no cell size (it is in the window size), 1024
  /// registers, 720×520 now and 1000×1000 at most, RGB kept, sixel in the attributes.
  func testXtermAsAVT340() {
    let recorded =
      "\u{1B}[?1;0;1024S\u{1B}[?1;0;1024S\u{1B}[?2;0;720;520S\u{1B}[?2;0;1000;1000S"
      + "\u{1B}P1$r0;38:2::1:2:3m\u{1B}\\\u{1B}[?63;1;2;4;6;9;15;16;22;28c"
    for split in [false, true] {
      let reader = read(recorded, split: split)
      XCTAssertTrue(reader.finished)
      XCTAssertEqual(reader.typed, [])
      let answers = reader.answers
      XCTAssertNil(answers.cellSize)
      XCTAssertEqual(answers.colourRegisters, 1024)
      XCTAssertEqual(answers.maximumColourRegisters, 1024)
      XCTAssertEqual(answers.sixelGeometry, PixelSize(width: 720, height: 520))
      XCTAssertEqual(answers.maximumSixelGeometry, PixelSize(width: 1000, height: 1000))
      XCTAssertEqual(answers.largestSixel, PixelSize(width: 1000, height: 1000))
      XCTAssertTrue(answers.directColour)
      XCTAssertTrue(answers.sixel)
      XCTAssertFalse(answers.kittyGraphics)
    }
  }

  /// Plain xterm (a VT420): graphics queries fail (status 3), no sixel.
  func testXtermWithoutSixel() {
    let answers = read(
      "\u{1B}[?1;3S\u{1B}[?1;3S\u{1B}[?2;3S\u{1B}[?2;3S\u{1B}P1$r0;38:2::1:2:3m\u{1B}\\"
        + "\u{1B}[?64;1;2;6;9;15;16;17;18;21;22;28c"
    ).answers
    XCTAssertNil(answers.colourRegisters)
    XCTAssertNil(answers.largestSixel)
    XCTAssertFalse(answers.sixel)
    XCTAssertTrue(answers.directColour)
  }

  /// kitty 0.26.5: the cell size, its graphics query answered OK, RGB kept; XTGETTCAP's
  /// failures are ignored.
  func testKitty() {
    let reader = read(
      "\u{1B}[6;20;9t\u{1B}_Gi=31;OK\u{1B}\\\u{1B}P1$r38:2:1:2:3m\u{1B}\\\u{1B}P0+r5463\u{1B}\\"
        + "\u{1B}[?62;c")
    XCTAssertEqual(reader.answers.cellSize, PixelSize(width: 9, height: 20))
    XCTAssertTrue(reader.answers.kittyGraphics)
    XCTAssertTrue(reader.answers.directColour)
    XCTAssertFalse(reader.answers.sixel)
    XCTAssertEqual(reader.answers.deviceAttributes, [62])
    XCTAssertEqual(reader.typed, [])
  }

  /// tmux 3.3a answers only the device attributes.
  /// tmux's answer to `CSI 6 n` (the pane's cursor, row first), then its device attributes;
  /// a malformed position is taken for keys.
  func testCursorPosition() {
    for split in [false, true] {
      let reader = read("\u{1B}[12;1R\u{1B}[?1;2c", split: split)
      XCTAssertEqual(reader.answers.cursorRow, 12)
      XCTAssertTrue(reader.finished)
      XCTAssertEqual(reader.typed, [])
    }
    let odd = read("\u{1B}[0;1R\u{1B}[?1;2c")
    XCTAssertNil(odd.answers.cursorRow)
    XCTAssertEqual(odd.typed, Array("\u{1B}[0;1R".utf8))
  }

  func testTmux() {
    let reader = read("\u{1B}[?1;2c")
    XCTAssertTrue(reader.finished)
    XCTAssertEqual(reader.answers.deviceAttributes, [1, 2])
    XCTAssertFalse(reader.answers.directColour)
    XCTAssertNil(reader.answers.cellSize)
  }

  /// A terminal that maps the RGB colour to its palette says so, and is no true-colour one;
  /// kitty's error is no OK.
  func testColoursMappedAndKittyErrors() {
    var answers = read("\u{1B}P1$r0;38;5;16m\u{1B}\\").answers
    XCTAssertFalse(answers.directColour)
    answers = read("\u{1B}P1$r38;2;9;9;9m\u{1B}\\").answers
    XCTAssertFalse(answers.directColour)
    answers = read("\u{1B}P0$r\u{1B}\\\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\").answers
    XCTAssertFalse(answers.directColour)
    XCTAssertFalse(answers.kittyGraphics)
  }

  /// Keys typed during the probe are kept, in order, and never taken for answers; what is
  /// not an answer to these queries is a key too.
  func testKeysTypedMeanwhile() {
    let reader = read("n\u{1B}[6;18;9t\u{1B}[Cj\u{1B}x\u{1B}[?1;2c")
    XCTAssertEqual(reader.answers.cellSize, PixelSize(width: 9, height: 18))
    XCTAssertEqual(String(decoding: reader.typed, as: UTF8.self), "n\u{1B}[Cj\u{1B}x")
    XCTAssertTrue(reader.finished)
  }

  /// Untrusted bytes: over-long sequences are dropped whole (never turned into keys),
  /// malformed numbers ignored, and nothing overflows.
  func testGarbageIsIgnored() {
    let long = "\u{1B}[" + String(repeating: "9", count: 5000) + "t"
    let longString = "\u{1B}P" + String(repeating: "x", count: 5000) + "\u{1B}\\"
    let reader = read(
      long + longString + "\u{1B}[6;-1;9t\u{1B}[6;99999999999999999999;9t\u{1B}[?1;0S\u{1B}[?2;0;0;5S"
        + "\u{1B}[?1;0;99999999999999999999S\u{1B}[?2;0;5S\u{1B}[?c")
    XCTAssertEqual(reader.typed, [])
    XCTAssertNil(reader.answers.cellSize)
    XCTAssertNil(reader.answers.colourRegisters)
    XCTAssertNil(reader.answers.maximumColourRegisters)
    XCTAssertNil(reader.answers.sixelGeometry)
    XCTAssertNil(reader.answers.maximumSixelGeometry)
    XCTAssertEqual(reader.answers.deviceAttributes, [])
    XCTAssertFalse(reader.answers.sixel)
  }

  /// The queries end with the device attributes, which every terminal answers last.
  func testTheQueriesEndWithTheDeviceAttributes() {
    XCTAssertTrue(TerminalProbe.queries(kitty: true).hasSuffix("\u{1B}[c"))
    XCTAssertTrue(TerminalProbe.queries(kitty: true).contains("\u{1B}_G"))
    XCTAssertFalse(TerminalProbe.queries(kitty: false).contains("\u{1B}_G"))
  }

  /// kitty's query is not sent where it would show: as text on the Linux console, as a
  /// title in tmux or GNU screen.
  func testKittysQueryOnlyWhereItIsHarmless() {
    XCTAssertTrue(TerminalProbe.asksKitty(["TERM": "xterm-256color"]))
    XCTAssertTrue(TerminalProbe.asksKitty(["TERM": "xterm-kitty"]))
    XCTAssertFalse(TerminalProbe.asksKitty(["TERM": "linux"]))
    XCTAssertFalse(TerminalProbe.asksKitty(["TERM": "xterm-256color", "TMUX": "/tmp/tmux-0/default,1,0"]))
    XCTAssertFalse(TerminalProbe.asksKitty(["TERM": "screen.xterm-256color"]))
    XCTAssertFalse(TerminalProbe.asksKitty(["TERM": "tmux-256color"]))
  }

  /// An answer cut short, or begun after a lone Escape, is never given back as keys (it
  /// would reach the shell's input): the Escape is a key, the rest an answer or dropped.
  func testAnAnswerAfterAnEscapeOrCutShortIsNotGivenBack() {
    let afterEscape = read("\u{1B}\u{1B}[?64;4c", split: true)
    XCTAssertEqual(afterEscape.typed, [0x1B])
    XCTAssertEqual(afterEscape.answers.sixel, true)
    let cut = read("\u{1B}[?1;0;10\u{1B}[?62;c")
    XCTAssertEqual(cut.typed, [])
    XCTAssertTrue(cut.finished)
    let overLong = read("\u{1B}[" + String(repeating: "1;", count: 200) + "\u{1B}[?62;c")
    XCTAssertEqual(overLong.typed, [])
    XCTAssertTrue(overLong.finished)
  }

}
