import VaultTestSupport
import XCTest

@testable import VaultTerminal

/// tmux's passthrough: what vault wraps its pictures in, and the pane it reads from tmux.
final class TmuxPassthroughTests: XCTestCase {
  let escape: UInt8 = 0x1B

  /// Unwraps passthroughs as tmux does: each `ESC P tmux ;` … `ESC \`, doubled ESCs undone.
  /// Returns the pieces' contents; fails on bytes outside a passthrough or an unpaired ESC.
  func unwrapped(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [[UInt8]] {
    var pieces: [[UInt8]] = []
    var offset = 0
    while offset < bytes.count {
      guard Array(bytes[offset...].prefix(TmuxPassthrough.start.count)) == TmuxPassthrough.start else {
        XCTFail("bytes outside a passthrough at \(offset)", file: file, line: line)
        return pieces
      }
      offset += TmuxPassthrough.start.count
      var piece: [UInt8] = []
      while offset + 1 < bytes.count, !(bytes[offset] == escape && bytes[offset + 1] == UInt8(ascii: "\\")) {
        if bytes[offset] == escape {
          guard bytes[offset + 1] == escape else {
            XCTFail("a single ESC inside a passthrough at \(offset)", file: file, line: line)
            return pieces
          }
          offset += 1
        }
        piece.append(bytes[offset])
        offset += 1
      }
      offset += 2
      pieces.append(piece)
    }
    return pieces
  }

  /// Random runs of escape sequences (kitty commands whose payload may be long, sixel-like
  /// DCS, cursor moves) come back whole through tmux: every ESC doubled, each passthrough
  /// under tmux's limit but for one sequence longer than `pieceSize`, and each cut where a
  /// sequence starts (tmux resets the cursor between passthroughs).
  func testRandomSequencesComeBackWholeInPiecesCutBetweenSequences() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<50 {
      var bytes: [UInt8] = []
      var starts: Set<Int> = []
      for _ in 0..<Int.random(in: 0...40, using: &random) {
        starts.insert(bytes.count)
        let payload = (0..<Int.random(in: 0...40_000, using: &random)).map { _ in
          UInt8(ascii: "A") + UInt8.random(in: 0...25, using: &random)
        }
        switch Int.random(in: 0...2, using: &random) {
        case 0: bytes += Array("\u{1B}_Ga=t,m=1;".utf8) + payload + [escape, UInt8(ascii: "\\")]
        case 1: bytes += Array("\u{1B}Pq".utf8) + payload + [escape, UInt8(ascii: "\\")]
        default: bytes += Array("\u{1B}[\(Int.random(in: 1...99, using: &random));1H".utf8)
        }
      }
      let wrapped = TmuxPassthrough.wrapped(bytes)
      let pieces = unwrapped(wrapped)
      XCTAssertEqual(Array(pieces.joined()), bytes, "seed \(seed)")
      var offset = 0
      for piece in pieces {
        XCTAssertTrue(starts.contains(offset), "a piece starts inside a sequence (seed \(seed))")
        offset += piece.count
      }
      XCTAssertEqual(pieces.isEmpty, bytes.isEmpty, "seed \(seed)")
      XCTAssertLessThanOrEqual(pieces.count, bytes.count / TmuxPassthrough.pieceSize + 1, "seed \(seed)")
    }
  }

  /// One sequence longer than a piece stays in one passthrough (cut, it would break); the
  /// sequence after it starts the next.
  func testALongSequenceStaysWhole() {
    let long =
      Array("\u{1B}Pq".utf8) + [UInt8](repeating: UInt8(ascii: "~"), count: 3 * TmuxPassthrough.pieceSize)
      + [escape, UInt8(ascii: "\\")]
    let pieces = unwrapped(TmuxPassthrough.wrapped(long + Array("\u{1B}[H".utf8)))
    XCTAssertEqual(pieces.map(\.count), [long.count, 3])
    XCTAssertTrue(pieces.first == long)
  }

  /// An upload wrapped in place is zeroed first: it held a photo's pixels.
  func testWrappingInPlaceKeepsRoomToAppendAPlacement() {
    var upload = Array("\u{1B}_Ga=t;AAAA\u{1B}\\".utf8)
    TmuxPassthrough.wrap(&upload, spareCapacity: 256)
    XCTAssertEqual(unwrapped(upload), [Array("\u{1B}_Ga=t;AAAA\u{1B}\\".utf8)])
    XCTAssertGreaterThanOrEqual(upload.capacity, upload.count + 256)
  }

  /// The pane from `tmux display -p`: its place on the terminal outside counts a status line
  /// at the top (one, or as many as `status` says), not one at the bottom.
  func testThePaneTmuxDescribes() {
    XCTAssertEqual(
      TmuxPane(answer: "1|0|41|on|bottom|xterm-kitty\n"),
      TmuxPane(passthrough: true, top: 0, left: 41, outerTerminal: "xterm-kitty"))
    XCTAssertEqual(TmuxPane(answer: "1|3|0|on|top|xterm")?.top, 4)
    XCTAssertEqual(TmuxPane(answer: "0|3|0|2|top|xterm")?.top, 5)
    XCTAssertEqual(TmuxPane(answer: "0|3|0|off|top|xterm")?.top, 3)
    XCTAssertEqual(TmuxPane(answer: "0|3|0|on|top|")?.passthrough, false)
    XCTAssertNil(TmuxPane(answer: ""))
    XCTAssertNil(TmuxPane(answer: "1|x|0|on|top|xterm"))
  }

  /// A picture at a pane's cell: the pane's cursor moved for tmux, and the outside
  /// terminal's, at the pane's place plus the cell, inside the passthrough with the picture.
  func testAPictureIsPlacedAtThePanesCellOnTheTerminalOutside() {
    let pane = TmuxPane(passthrough: true, top: 1, left: 41, outerTerminal: "xterm-kitty")
    let picture = Array("\u{1B}_Ga=p,i=1\u{1B}\\".utf8)
    let placed = pane.placed(picture, row: 2, column: 3)
    let cursor = Array("\u{1B}[3;4H".utf8)
    XCTAssertEqual(Array(placed.prefix(cursor.count)), cursor)
    XCTAssertEqual(unwrapped(Array(placed.dropFirst(cursor.count))), [Array("\u{1B}[4;45H".utf8) + picture])
  }
}
