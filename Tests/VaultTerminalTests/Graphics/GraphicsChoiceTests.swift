import CChafa
import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// How `auto` chooses the way to draw, from recorded answers and the environment.
final class GraphicsChoiceTests: XCTestCase {
  func answers(_ text: String) -> TerminalAnswers {
    var reader = TerminalAnswerReader()
    reader.feed(Array(text.utf8))
    return reader.answers
  }

  let xtermVT340 =
    "\u{1B}[?1;0;1024S\u{1B}[?1;0;1024S\u{1B}[?2;0;720;520S\u{1B}[?2;0;1000;1000S"
    + "\u{1B}P1$r0;38:2::1:2:3m\u{1B}\\\u{1B}[?63;1;2;4;6;9;15;16;22;28c"

  /// `xterm -ti vt340` gets sixel without --mode, whatever libchafa's database says of
  /// TERM=xterm; plain xterm gets symbols, both in true colour.
  func testXtermGetsSixelWhenItSaysSo() {
    let xterm = GraphicsChoice(
      environment: ["TERM": "xterm"], answers: answers(xtermVT340),
      database: .init(colours256: true))
    XCTAssertEqual(xterm.pixelMode(.auto), CHAFA_PIXEL_MODE_SIXELS)
    XCTAssertEqual(xterm.canvasMode, CHAFA_CANVAS_MODE_TRUECOLOR)
    let plain = GraphicsChoice(
      environment: ["TERM": "xterm"], answers: answers("\u{1B}[?64;1;2;6;22c"), database: .init(sixel: true))
    XCTAssertEqual(plain.pixelMode(.auto), CHAFA_PIXEL_MODE_SYMBOLS)
    XCTAssertEqual(plain.pixelMode(.sixel), CHAFA_PIXEL_MODE_SIXELS)
  }

  /// kitty by its TERM or by its answer (over ssh TERM may say otherwise).
  func testKitty() {
    let byTerm = GraphicsChoice(
      environment: ["TERM": "xterm-kitty"], answers: answers("\u{1B}[?62;c"), database: .init())
    XCTAssertEqual(byTerm.pixelMode(.auto), CHAFA_PIXEL_MODE_KITTY)
    let byAnswer = GraphicsChoice(
      environment: ["TERM": "xterm-256color"], answers: answers("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;c"),
      database: .init())
    XCTAssertEqual(byAnswer.pixelMode(.auto), CHAFA_PIXEL_MODE_KITTY)
  }

  /// Inside tmux: symbols (no passthrough), in true colour though tmux answers no colour
  /// query and COLORTERM is unset: tmux turns RGB into what the terminal outside shows.
  func testInsideTmux() {
    let tmux = GraphicsChoice(
      environment: ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"],
      answers: answers("\u{1B}[?1;2c"), database: .init(sixel: true, colours256: true))
    XCTAssertEqual(tmux.pixelMode(.auto), CHAFA_PIXEL_MODE_SYMBOLS)
    XCTAssertEqual(tmux.canvasMode, CHAFA_CANVAS_MODE_TRUECOLOR)
  }

  /// Unasked (stdout is not the terminal), libchafa's database decides; 256 colours
  /// without a sign of more.
  func testUnaskedTerminals() {
    let unasked = GraphicsChoice(
      environment: ["TERM": "mlterm"], answers: nil, database: .init(sixel: true, colours256: true))
    XCTAssertEqual(unasked.pixelMode(.auto), CHAFA_PIXEL_MODE_SIXELS)
    XCTAssertEqual(unasked.canvasMode, CHAFA_CANVAS_MODE_INDEXED_256)
    let colorTerm = GraphicsChoice(
      environment: ["TERM": "xterm", "COLORTERM": "truecolor"], answers: nil,
      database: .init(colours256: true))
    XCTAssertEqual(colorTerm.canvasMode, CHAFA_CANVAS_MODE_TRUECOLOR)
  }

  /// A mode asked for by name: refused inside tmux; doubted where the terminal answered and
  /// did not declare it (kitty shows no sixel); trusted where it said so or was not asked.
  func testDoubtsAboutAModeAskedForByName() {
    let kitty = GraphicsChoice(
      environment: ["TERM": "xterm-kitty"], answers: answers("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;c"),
      database: .init())
    XCTAssertNil(kitty.doubt(about: .kitty))
    XCTAssertEqual(kitty.doubt(about: .sixel), .notDeclared)
    XCTAssertNil(kitty.doubt(about: .symbols))
    XCTAssertNil(kitty.doubt(about: .auto))
    let xterm = GraphicsChoice(
      environment: ["TERM": "xterm"], answers: answers(xtermVT340), database: .init())
    XCTAssertNil(xterm.doubt(about: .sixel))
    XCTAssertEqual(xterm.doubt(about: .kitty), .notDeclared)
    let unasked = GraphicsChoice(environment: ["TERM": "xterm"], answers: nil, database: .init())
    XCTAssertNil(unasked.doubt(about: .kitty))
    let tmux = GraphicsChoice(
      environment: ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"],
      answers: answers("\u{1B}[?1;2c"),
      database: .init())
    for mode in [DisplayMode.kitty, .sixel] { XCTAssertEqual(tmux.doubt(about: mode), .insideTmux) }
    XCTAssertEqual(tmux.doubt(about: .iterm2), .notThroughTmux)
    XCTAssertNil(tmux.doubt(about: .symbols))
  }

  /// Inside tmux with its passthrough on: kitty where tmux runs in kitty (its client's TERM,
  /// or the KITTY_WINDOW_ID the pane inherited), sixel where libchafa's database says the
  /// terminal outside has it, else symbols; kitty and sixel asked for by name are drawn,
  /// iTerm2's still refused. Off, or tmux silent: symbols, and kitty and sixel refused.
  func testInsideTmuxWithItsPassthrough() {
    let environment = ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%1"]
    func choice(
      _ answer: String, outerSixel: Bool = false, environment extra: [String: String] = [:]
    ) -> GraphicsChoice {
      var choice = GraphicsChoice(
        environment: environment.merging(extra) { $1 }, answers: answers("\u{1B}[?1;2c"), database: .init())
      choice.tmux = TmuxPane(answer: answer)
      choice.outerDatabase = .init(sixel: outerSixel)
      return choice
    }
    XCTAssertEqual(choice("1|0|0|on|bottom|xterm-kitty").pixelMode(.auto), CHAFA_PIXEL_MODE_KITTY)
    XCTAssertEqual(
      choice("1|0|0|on|bottom|", environment: ["KITTY_WINDOW_ID": "1"]).pixelMode(.auto),
      CHAFA_PIXEL_MODE_KITTY)
    XCTAssertEqual(
      choice("1|0|0|on|bottom|mlterm", outerSixel: true).pixelMode(.auto), CHAFA_PIXEL_MODE_SIXELS)
    let xterm = choice("1|0|0|on|bottom|xterm")
    XCTAssertEqual(xterm.pixelMode(.auto), CHAFA_PIXEL_MODE_SYMBOLS)
    XCTAssertNil(xterm.doubt(about: .sixel))
    XCTAssertNil(xterm.doubt(about: .kitty))
    XCTAssertEqual(xterm.doubt(about: .iterm2), .notThroughTmux)
    for off in [choice("0|0|0|on|bottom|xterm-kitty"), choice("not an answer")] {
      XCTAssertEqual(off.pixelMode(.auto), CHAFA_PIXEL_MODE_SYMBOLS)
      XCTAssertEqual(off.doubt(about: .kitty), .insideTmux)
    }
  }

  /// Inside tmux that did not answer in time or answered nonsense: symbols whatever is asked
  /// (kitty and sixel not refused: nothing is known of its passthrough), iTerm2's refused.
  /// Unavailable (no tmux to ask): as tmux silent, kitty and sixel refused.
  func testInsideTmuxThatToldNothing() {
    for silence in [TmuxSilence.noAnswerInTime, .unusableAnswer] {
      var choice = GraphicsChoice(
        environment: ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "KITTY_WINDOW_ID": "1"],
        answers: answers("\u{1B}[?1;2c"), database: .init())
      choice.tmuxSilence = silence
      for mode in [DisplayMode.auto, .kitty, .sixel] {
        XCTAssertEqual(choice.pixelMode(mode), CHAFA_PIXEL_MODE_SYMBOLS, "\(silence) \(mode)")
        XCTAssertNil(choice.doubt(about: mode), "\(silence) \(mode)")
      }
      XCTAssertEqual(choice.doubt(about: .iterm2), .notThroughTmux)
      choice.tmuxSilence = .unavailable
      XCTAssertEqual(choice.doubt(about: .kitty), .insideTmux)
    }
  }
}
