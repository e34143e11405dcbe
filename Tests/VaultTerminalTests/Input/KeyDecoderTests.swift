import VaultCore
import XCTest

@testable import VaultTerminal

/// The bytes terminals send for keys, decoded whole or in any pieces.
final class KeyDecoderTests: XCTestCase {
  func keys(_ text: String) -> [Key] {
    var decoder = KeyDecoder()
    return decoder.feed(Array(text.utf8))
  }

  func testPrintableCharactersIncludingUTF8() {
    XCTAssertEqual(keys("q +-"), [.character("q"), .character(" "), .character("+"), .character("-")])
    XCTAssertEqual(keys("é✔🙂"), [.character("é"), .character("✔"), .character("🙂")])
  }

  func testEnterBackspaceTabAndControlCharacters() {
    XCTAssertEqual(keys("\r"), [.enter])
    XCTAssertEqual(keys("\n"), [.enter])
    XCTAssertEqual(keys("\r\n"), [.enter], "CR LF is one Enter")
    XCTAssertEqual(keys("\r\r"), [.enter, .enter])
    XCTAssertEqual(keys("\n\n"), [.enter, .enter])
    XCTAssertEqual(keys("\u{7F}\u{08}"), [.backspace, .backspace])
    XCTAssertEqual(keys("\t"), [.tab])
    XCTAssertEqual(
      keys("\u{01}\u{04}\u{13}\u{11}\u{1A}"),
      [.control("a"), .control("d"), .control("s"), .control("q"), .control("z")])
    XCTAssertEqual(
      keys("\u{00}\u{1C}\u{1D}\u{1E}\u{1F}"),
      [.control("@"), .control("\\"), .control("]"), .control("^"), .control("_")])
  }

  func testCursorKeysInBothModes() {
    XCTAssertEqual(keys("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D"), [.up, .down, .right, .left])
    XCTAssertEqual(keys("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD"), [.up, .down, .right, .left])
    XCTAssertEqual(keys("\u{1B}[1;5A\u{1B}[1;2D"), [.up, .left], "modifiers do not change the key")
  }

  func testHomeEndPageUpPageDownInEverySpelling() {
    XCTAssertEqual(keys("\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF"), [.home, .end, .home, .end])
    XCTAssertEqual(keys("\u{1B}[1~\u{1B}[7~\u{1B}[4~\u{1B}[8~"), [.home, .home, .end, .end])
    XCTAssertEqual(keys("\u{1B}[5~\u{1B}[6~\u{1B}[5;5~"), [.pageUp, .pageDown, .pageUp])
  }

  func testALoneEscapeWaitsForTheTimeout() {
    var decoder = KeyDecoder()
    XCTAssertEqual(decoder.feed([0x1B]), [])
    XCTAssertTrue(decoder.isIncomplete)
    XCTAssertEqual(decoder.timeOut(), [.escape])
    XCTAssertFalse(decoder.isIncomplete)
    XCTAssertEqual(decoder.feed(Array("q".utf8)), [.character("q")])
    // Two Escapes in one read: the first cannot start a sequence.
    XCTAssertEqual(decoder.feed([0x1B, 0x1B]), [.escape])
    XCTAssertEqual(decoder.timeOut(), [.escape])
    XCTAssertEqual(decoder.feed(Array("\u{1B}\u{1B}[A".utf8)), [.escape, .up])
  }

  func testAnUnfinishedSequenceIsDroppedAtTheTimeout() {
    var decoder = KeyDecoder()
    XCTAssertEqual(decoder.feed(Array("\u{1B}[1;".utf8)), [])
    XCTAssertEqual(decoder.timeOut(), [])
    XCTAssertEqual(decoder.feed(Array("A".utf8)), [.character("A")])
  }

  func testEverySequenceSplitAtEveryByte() {
    let sequences: [(String, Key)] = [
      ("\u{1B}[A", .up), ("\u{1B}OB", .down), ("\u{1B}[1;5C", .right), ("\u{1B}[H", .home),
      ("\u{1B}OF", .end),
      ("\u{1B}[4~", .end), ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown), ("é", .character("é")),
      ("🙂", .character("🙂")),
    ]
    for (text, key) in sequences {
      let bytes = Array(text.utf8)
      for split in 1..<bytes.count {
        var decoder = KeyDecoder()
        let first = decoder.feed(Array(bytes[..<split]))
        XCTAssertEqual(first, [], "\(bytes) split at \(split)")
        XCTAssertTrue(decoder.isIncomplete)
        XCTAssertEqual(decoder.feed(Array(bytes[split...])), [key], "\(bytes) split at \(split)")
        XCTAssertFalse(decoder.isIncomplete)
      }
      // One byte a read.
      var decoder = KeyDecoder()
      XCTAssertEqual(bytes.flatMap { decoder.feed([$0]) }, [key])
    }
  }

  func testUnknownSequencesAreDroppedWhole() {
    let unknown = [
      "\u{1B}[2~", "\u{1B}[3~", "\u{1B}[15~", "\u{1B}[Z", "\u{1B}OP", "\u{1B}[<0;10;5M", "\u{1B}[?1;2c",
      "\u{1B}[201~", "\u{1B}]11;rgb:0000/0000/0000\u{07}", "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\",
      "\u{1B}_Gi=1;OK\u{1B}\\", "\u{1B}P1$r0m\u{1B}\\", "\u{1B}x", "\u{1B}[4;600;800t",
      "\u{1B}[" + String(repeating: "1;", count: 40) + "A",
    ]
    for sequence in unknown {
      XCTAssertEqual(keys(sequence + "j"), [.character("j")], sequence.debugDescription)
      var decoder = KeyDecoder()
      XCTAssertEqual(Array((sequence + "j").utf8).flatMap { decoder.feed([$0]) }, [.character("j")])
    }
  }

  func testAStringCutShortByANewSequence() {
    XCTAssertEqual(keys("\u{1B}_Gi=1;partial\u{1B}[Bk"), [.down, .character("k")])
  }

  func testInvalidUTF8IsIgnoredAndDoesNotSwallowTheNextKey() {
    XCTAssertEqual(keys("\u{80}a"), [.character("a")])
    var decoder = KeyDecoder()
    XCTAssertEqual(decoder.feed([0xC3, UInt8(ascii: "b")]), [.character("b")])
    XCTAssertEqual(decoder.feed([0xFF, 0xC0, UInt8(ascii: "c")]), [.character("c")])
    // C1 controls encoded in UTF-8 are not printable.
    XCTAssertEqual(decoder.feed([0xC2, 0x9B, UInt8(ascii: "d")]), [.character("d")])
  }

  func testTheCellSizeReport() {
    var decoder = KeyDecoder()
    XCTAssertEqual(decoder.feed(Array("\u{1B}[6;20;10tn".utf8)), [.character("n")])
    XCTAssertEqual(decoder.cellSizeReport, PixelSize(width: 10, height: 20))
    decoder.clearCellSizeReport()
    XCTAssertNil(decoder.cellSizeReport)
  }

  /// kitty's replies to graphics commands are kept (never keys), whole or split anywhere,
  /// ended by ST or BEL; other strings and a reply cut short are not; a long one is cut.
  func testKittyGraphicsRepliesAreKeptApartFromTheKeys() {
    let input =
      "a\u{1B}_Gi=3,p=1;ENOENT:gone\u{1B}\\b\u{1B}_Gi=4;OK\u{07}\u{1B}]0;x\u{1B}\\\u{1B}_Gi=5;cut\u{1B}[Ac"
    var whole = KeyDecoder()
    XCTAssertEqual(whole.feed(Array(input.utf8)), [.character("a"), .character("b"), .up, .character("c")])
    XCTAssertEqual(whole.takeGraphicsReplies(), ["i=3,p=1;ENOENT:gone", "i=4;OK"])
    XCTAssertEqual(whole.takeGraphicsReplies(), [])
    var split = KeyDecoder()
    XCTAssertEqual(Array(input.utf8).flatMap { split.feed([$0]) }.count, 4)
    XCTAssertEqual(split.takeGraphicsReplies(), ["i=3,p=1;ENOENT:gone", "i=4;OK"])
    var long = KeyDecoder()
    _ = long.feed(Array(("\u{1B}_G" + String(repeating: "x", count: 5000) + "\u{1B}\\").utf8))
    XCTAssertEqual(long.takeGraphicsReplies().map(\.count), [KeyDecoder.longestKeptString - 1])
  }

  func testKittyRepliesParse() {
    XCTAssertEqual(KittyReply("i=3,p=1;ENOENT:no such image")?.imageID, 3)
    XCTAssertEqual(KittyReply("i=3,p=1;ENOENT:no such image")?.message, "ENOENT:no such image")
    XCTAssertEqual(KittyReply("i=3,p=1;ENOENT:no such image")?.code, "ENOENT")
    XCTAssertEqual(KittyReply("i=7;OK")?.isError, false)
    XCTAssertNil(KittyReply("i=99999999999;EINVAL")?.imageID)
    XCTAssertNil(KittyReply("no separator"))
  }
}

/// Bracketed paste: pasted text is one event, never keys.
final class PasteDecodingTests: XCTestCase {
  func testPastedTextIsOneEventEvenWhenSplit() {
    var decoder = KeyDecoder()
    let bytes = Array("\u{1B}[200~study\ty\r\u{1B}[A\u{1B}[201~d".utf8)
    var keys: [Key] = []
    for byte in bytes { keys += decoder.feed([byte]) }
    XCTAssertEqual(keys, [.paste("study y "), .character("d")])
  }
}
