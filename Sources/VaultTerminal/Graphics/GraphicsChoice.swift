import CChafa

/// How pictures and colours are drawn, chosen from what the terminal answered, the
/// environment and libchafa's database of terminals, in that order of trust.
struct GraphicsChoice {
  /// What libchafa's database says the terminal has (from TERM and the environment).
  struct Database {
    var kitty = false
    var iterm2 = false
    var sixel = false
    var directColour = false
    var colours256 = false
  }

  let environment: [String: String]
  /// nil when the terminal could not be asked (stdout is not the controlling terminal).
  let answers: TerminalAnswers?
  let database: Database
  /// Inside tmux: the pane, as tmux tells it (nil when it did not answer).
  var tmux: TmuxPane? = nil
  /// Inside tmux, why it told nothing of the pane.
  var tmuxSilence: TmuxSilence? = nil
  /// What libchafa's database says of the terminal tmux runs in (its client's TERM).
  var outerDatabase = Database()

  /// Inside tmux, which draws every pane itself: it passes graphics on only with
  /// `allow-passthrough` on, and it takes direct RGB colours whatever the terminal outside
  /// has, turning them into what that one shows.
  var insideTmux: Bool { Self.insideTmux(environment) }

  static func insideTmux(_ environment: [String: String]) -> Bool { !(environment["TMUX"] ?? "").isEmpty }

  /// Inside tmux with its passthrough on: kitty's and sixel pictures reach the terminal
  /// outside (iTerm2's are not sent through).
  var passesPictures: Bool { insideTmux && tmux?.passthrough == true }

  /// Inside tmux that did not answer in time, or answered nonsense: whether its passthrough
  /// is on and where pictures would go are unknown, so it gets symbols, whatever was asked.
  var tmuxPaneUnknown: Bool {
    insideTmux && (tmuxSilence == .noAnswerInTime || tmuxSilence == .unusableAnswer)
  }

  /// `auto`: kitty graphics where the terminal is kitty (or answers kitty's query), else
  /// iTerm2's where libchafa knows the terminal has them, else sixel where the device
  /// attributes say 4 (or, unasked, libchafa's database says so), else symbols. Inside
  /// tmux whose pane is unknown, symbols whatever mode was asked for.
  func pixelMode(_ mode: DisplayMode) -> ChafaPixelMode {
    if tmuxPaneUnknown { return CHAFA_PIXEL_MODE_SYMBOLS }
    switch mode {
    case .kitty: return CHAFA_PIXEL_MODE_KITTY
    case .iterm2: return CHAFA_PIXEL_MODE_ITERM2
    case .sixel: return CHAFA_PIXEL_MODE_SIXELS
    case .symbols, .text: return CHAFA_PIXEL_MODE_SYMBOLS
    case .auto: break
    }
    if insideTmux { return pixelModeThroughTmux }
    // The terminal's own answers, when it gave them, count over the database's guess.
    let answered = answers?.deviceAttributes != nil
    if environment["TERM"] == "xterm-kitty" || answers?.kittyGraphics == true || (database.kitty && !answered)
    {
      return CHAFA_PIXEL_MODE_KITTY
    }
    if database.iterm2 { return CHAFA_PIXEL_MODE_ITERM2 }
    let sixel = answered ? answers?.sixel == true : database.sixel
    return sixel ? CHAFA_PIXEL_MODE_SIXELS : CHAFA_PIXEL_MODE_SYMBOLS
  }

  /// `auto` inside tmux: nothing but symbols unless its passthrough is on; then kitty
  /// graphics where the terminal outside is kitty (its client's TERM, or KITTY_WINDOW_ID
  /// that the pane inherited), sixel where libchafa's database says that terminal has them
  /// (tmux answers the device attributes itself, without sixel), else symbols.
  private var pixelModeThroughTmux: ChafaPixelMode {
    guard passesPictures, let tmux else { return CHAFA_PIXEL_MODE_SYMBOLS }
    if tmux.outerTerminal == "xterm-kitty" || !(environment["KITTY_WINDOW_ID"] ?? "").isEmpty {
      return CHAFA_PIXEL_MODE_KITTY
    }
    return outerDatabase.sixel ? CHAFA_PIXEL_MODE_SIXELS : CHAFA_PIXEL_MODE_SYMBOLS
  }

  /// Why a mode given with `--mode` may not draw here, or nil: inside tmux, kitty's and
  /// sixel pictures show only through its passthrough (else kitty's commands become the
  /// pane's title, with their Base64 of the pixels), iTerm2's not at all; kitty's or sixel
  /// pictures the terminal did not declare come out as text or nothing. (Inside tmux whose
  /// pane is unknown, kitty's and sixel pictures are not doubted but drawn in symbols.)
  func doubt(about mode: DisplayMode) -> ForcedModeDoubt? {
    switch mode {
    case .iterm2: if insideTmux { return .notThroughTmux }
    case .kitty, .sixel: if insideTmux { return passesPictures || tmuxPaneUnknown ? nil : .insideTmux }
    default: return nil
    }
    guard let answers, answers.deviceAttributes != nil else { return nil }
    if mode == .kitty, environment["TERM"] != "xterm-kitty", answers.kittyGraphics != true {
      return .notDeclared
    }
    if mode == .sixel, !answers.sixel { return .notDeclared }
    return nil
  }

  /// True colour where the terminal has it (COLORTERM, inside tmux, its answer, or
  /// libchafa's database), else 256 colours, else 16.
  var canvasMode: ChafaCanvasMode {
    let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
    if colorTerm == "truecolor" || colorTerm == "24bit" || insideTmux || answers?.directColour == true
      || database.directColour
    {
      return CHAFA_CANVAS_MODE_TRUECOLOR
    }
    return database.colours256 ? CHAFA_CANVAS_MODE_INDEXED_256 : CHAFA_CANVAS_MODE_INDEXED_16
  }
}

extension GraphicsChoice.Database {
  /// What `info` (libchafa's description of the terminal) declares.
  init(info: OpaquePointer) {
    func has(_ sequence: ChafaTermSeq) -> Bool { chafa_term_info_have_seq(info, sequence) != 0 }
    kitty = has(CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1)
    iterm2 = has(CHAFA_TERM_SEQ_BEGIN_ITERM2_IMAGE)
    sixel = has(CHAFA_TERM_SEQ_BEGIN_SIXELS)
    directColour = has(CHAFA_TERM_SEQ_SET_COLOR_FG_DIRECT)
    colours256 = has(CHAFA_TERM_SEQ_SET_COLOR_FG_256)
  }
}
