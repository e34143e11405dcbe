import CChafa
import Foundation
import VaultCore

/// How `list --per-row` draws thumbnails.
public enum DisplayMode: String, CaseIterable, Sendable {
  case auto, kitty, iterm2, sixel, symbols, text
}

/// What the terminal can show and the size of a character cell: asked of the terminal
/// itself (`TerminalProbe`), with libchafa's database of terminals (from TERM and the
/// environment) for what the terminal does not answer. libchafa 1.12 picks no colour mode
/// by itself and ignores TERM=dumb, so both are decided here.
public final class TerminalGraphics {
  let pixelMode: ChafaPixelMode
  let canvasMode: ChafaCanvasMode
  /// Owned reference to libchafa's description of the terminal's control sequences.
  let termInfo: OpaquePointer
  public let characterWidth: Int
  public let characterHeight: Int
  /// The largest sixel image the terminal shows: larger pictures are drawn as several.
  let largestSixel: PixelSize
  /// Set when the mode was asked for by name and the terminal did not declare it.
  public let doubt: ForcedModeDoubt?
  /// The tmux pane pictures are drawn in through tmux's passthrough; nil outside tmux, or
  /// when nothing passes through.
  private(set) var tmux: TmuxPane?
  /// Drawn in symbols inside tmux, attached to a terminal, whose passthrough is off: with
  /// it on, that terminal might show pictures.
  public let picturesNeedPassthrough: Bool
  /// Drawn in symbols inside tmux because it did not answer in time where the pane is, or
  /// answered nonsense (`.noAnswerInTime`, `.unusableAnswer`); nil otherwise.
  public let unknownTmuxPane: TmuxSilence?
  /// tmux once did not answer in time: it is not asked again after a resize, which would
  /// hold the viewer each time.
  private var tmuxStoppedAnswering = false

  private init(
    pixelMode: ChafaPixelMode, canvasMode: ChafaCanvasMode, termInfo: OpaquePointer, cell: PixelSize,
    largestSixel: PixelSize, doubt: ForcedModeDoubt?, tmux: TmuxPane?, unknownTmuxPane: TmuxSilence?
  ) {
    self.doubt = doubt
    self.unknownTmuxPane = unknownTmuxPane
    self.tmux = pixelMode == CHAFA_PIXEL_MODE_SYMBOLS || tmux?.passthrough != true ? nil : tmux
    picturesNeedPassthrough =
      pixelMode == CHAFA_PIXEL_MODE_SYMBOLS && tmux?.passthrough == false
      && tmux?.outerTerminal.isEmpty == false
    self.pixelMode = pixelMode
    self.canvasMode = canvasMode
    self.termInfo = termInfo
    self.characterWidth = cell.width
    self.characterHeight = cell.height
    self.largestSixel = largestSixel
    if isKitty, self.tmux != nil { Self.printKittyAtPixelSize(termInfo) }
  }

  deinit {
    chafa_term_info_unref(termInfo)
  }

  /// xterm's default largest sixel image, taken for a terminal that does not say its own.
  static let defaultLargestSixel = PixelSize(width: 1000, height: 1000)
  /// Sixel colour registers libchafa 1.12 uses at most (its palette has 256 entries, one
  /// of them transparent).
  static let sixelRegisters = 256

  /// Whether `mode` draws text only, as `resolve` decides before it asks the terminal
  /// anything: `text`, or `auto` with stdout not a terminal, `NO_COLOR` or `TERM=dumb`.
  public static func isTextOnly(_ mode: DisplayMode) -> Bool {
    let environment = ProcessInfo.processInfo.environment
    if mode == .text { return true }
    guard mode == .auto else { return false }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return true }
    let term = environment["TERM"] ?? ""
    return term.isEmpty || term == "dumb" || !Terminal.stdoutIsTerminal
  }

  /// The graphics to draw with, or nil for the text layout: `auto` means text when stdout
  /// is not a terminal, or with `NO_COLOR` or `TERM=dumb`; other modes are drawn as asked.
  /// Throws `ForcedModeDoubt.insideTmux` for a pictures mode inside tmux with its
  /// passthrough off (`.notThroughTmux` for iTerm2's); a mode the terminal did not declare
  /// is drawn as asked, with `doubt` set.
  public static func resolve(_ mode: DisplayMode) throws -> TerminalGraphics? {
    let environment = ProcessInfo.processInfo.environment
    if isTextOnly(mode) { return nil }
    let database = chafa_term_db_get_default()
    guard let info = chafa_term_db_detect(database, environ) else { return nil }
    let answers = TerminalProbe.ask()
    // The sequences a mode needs are added where libchafa's entry for TERM lacks them:
    // before the choice for a forced mode (so it draws in true colour, as it always did),
    // after it for `auto`, whose choice reads the entry as it is (and the terminal's
    // answers: plain TERM=xterm has no sixel in libchafa's database).
    func supplement() {
      guard let fallback = chafa_term_db_get_fallback_info(database) else { return }
      chafa_term_info_supplement(info, fallback)
      chafa_term_info_unref(fallback)
    }
    if mode != .auto { supplement() }
    var choice = GraphicsChoice(
      environment: environment, answers: answers, database: GraphicsChoice.Database(info: info))
    if GraphicsChoice.insideTmux(environment) {
      switch TmuxPane.ask(environment: environment) {
      case .success(let pane): choice.tmux = pane
      case .failure(let silence): choice.tmuxSilence = silence
      }
      choice.outerDatabase = outerDatabase(database, terminal: choice.tmux?.outerTerminal ?? "")
    }
    let pixelMode = choice.pixelMode(mode)
    if mode == .auto { supplement() }
    let doubt = choice.doubt(about: mode)
    if let doubt, doubt != .notDeclared {
      chafa_term_info_unref(info)
      throw doubt
    }
    if pixelMode == CHAFA_PIXEL_MODE_SIXELS, let answers { useSixelRegisters(answers) }
    let cell = Terminal.windowCellSize() ?? answers?.cellSize ?? PixelSize(width: 8, height: 16)
    return TerminalGraphics(
      pixelMode: pixelMode, canvasMode: choice.canvasMode, termInfo: info,
      cell: PixelSize(
        width: min(cell.width, FullScreenTerminal.largestCell),
        height: min(cell.height, FullScreenTerminal.largestCell)),
      largestSixel: answers?.largestSixel.map(SixelTiles.believable) ?? defaultLargestSixel, doubt: doubt,
      tmux: choice.tmux,
      unknownTmuxPane: choice.tmuxPaneUnknown && mode != .symbols ? choice.tmuxSilence : nil)
  }

  /// Asks tmux again where the pane is (after a resize, it may have moved on the terminal
  /// outside); kept as it was when tmux does not answer, or has turned its passthrough off.
  func askTmuxPaneAgain() {
    guard tmux != nil, !tmuxStoppedAnswering else { return }
    switch TmuxPane.ask(environment: ProcessInfo.processInfo.environment) {
    case .success(let pane) where pane.passthrough: tmux = pane
    case .failure(.noAnswerInTime): tmuxStoppedAnswering = true
    default: break
    }
  }

  /// What libchafa's database says of the terminal named `terminal` (a TERM).
  private static func outerDatabase(_ database: OpaquePointer?, terminal: String) -> GraphicsChoice.Database {
    guard !terminal.isEmpty else { return GraphicsChoice.Database() }
    var variables: [UnsafeMutablePointer<CChar>?] = [strdup("TERM=" + terminal), nil]
    defer { free(variables[0]) }
    guard
      let info = variables.withUnsafeMutableBufferPointer({ chafa_term_db_detect(database, $0.baseAddress) })
    else { return GraphicsChoice.Database() }
    defer { chafa_term_info_unref(info) }
    return GraphicsChoice.Database(info: info)
  }

  /// Bytes that show `picture` (a sixel image or a kitty command drawn where the cursor
  /// is) with its top-left cell at `row` and `column` of the screen (0-based): through
  /// tmux's passthrough inside tmux.
  func placed(_ picture: [UInt8], row: Int, column: Int) -> [UInt8] {
    tmux?.placed(picture, row: row, column: column) ?? Array("\u{1B}[\(row + 1);\(column + 1)H".utf8)
      + picture
  }

  /// Gives libchafa's palette all its colour registers where the terminal has fewer in use
  /// and allows more (XTSMGRAPHICS set).
  private static func useSixelRegisters(_ answers: TerminalAnswers) {
    if let count = sixelRegistersToSet(answers) { TerminalProbe.setColourRegisters(count) }
  }

  /// The number of colour registers to ask for: libchafa's palette where the terminal
  /// has fewer in use and allows more, else nil (leave them).
  static func sixelRegistersToSet(_ answers: TerminalAnswers) -> Int? {
    guard let current = answers.colourRegisters, current < sixelRegisters,
      let maximum = answers.maximumColourRegisters, maximum > current
    else { return nil }
    return min(maximum, sixelRegisters)
  }

  /// Whether pictures go through kitty's graphics protocol (the viewer speaks it itself).
  var isKitty: Bool { pixelMode == CHAFA_PIXEL_MODE_KITTY }

  /// The escape sequence that starts a label of a selected photo, and the one that ends it.
  public var selectedLabelStyle: (start: String, end: String) {
    let (r, g, b) = GridRowImage.selectionColour
    switch canvasMode {
    case CHAFA_CANVAS_MODE_TRUECOLOR: return ("\u{1B}[1;38;2;\(r);\(g);\(b)m", "\u{1B}[0m")
    case CHAFA_CANVAS_MODE_INDEXED_256: return ("\u{1B}[1;38;5;33m", "\u{1B}[0m")
    default: return ("\u{1B}[1;34m", "\u{1B}[0m")
    }
  }
}

/// Draws grid rows through libchafa: one canvas as wide as the grid and as tall as a cell.
public final class ChafaRenderer {
  private let graphics: TerminalGraphics
  private let canvas: OpaquePointer

  public init(graphics: TerminalGraphics, columns: Int, rows: Int) {
    self.graphics = graphics
    let config = chafa_canvas_config_new()!
    chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
    let cell = Self.cellGeometry(
      columns: columns, rows: rows,
      cell: PixelSize(width: graphics.characterWidth, height: graphics.characterHeight))
    chafa_canvas_config_set_cell_geometry(config, Int32(cell.width), Int32(cell.height))
    chafa_canvas_config_set_pixel_mode(config, graphics.pixelMode)
    chafa_canvas_config_set_canvas_mode(config, graphics.canvasMode)
    if graphics.pixelMode == CHAFA_PIXEL_MODE_SIXELS {
      // libchafa's sixel palette has 256 colours, and sixel colours 101 levels a channel:
      // undithered, smooth gradients come out in bands.
      chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_DIFFUSION)
    }
    canvas = chafa_canvas_new(config)
    chafa_canvas_config_unref(config)
  }

  /// The most pixels a canvas may have: 8K by 4K. A terminal that reports huge cells
  /// (each side is capped at 256) times 1000 by 1000 cells would make libchafa allocate
  /// gigabytes.
  static let canvasPixelLimit = 8192 * 4096

  /// The cell size libchafa draws with: the terminal's, shrunk (keeping its shape) when the
  /// canvas would have more than `canvasPixelLimit` pixels.
  static func cellGeometry(columns: Int, rows: Int, cell: PixelSize) -> PixelSize {
    let pixels = Double(columns) * Double(rows) * Double(cell.width) * Double(cell.height)
    guard pixels > Double(canvasPixelLimit) else { return cell }
    let shrink = (Double(canvasPixelLimit) / pixels).squareRoot()
    return PixelSize(
      width: max(1, Int(Double(cell.width) * shrink)), height: max(1, Int(Double(cell.height) * shrink)))
  }

  deinit {
    chafa_canvas_unref(canvas)
  }

  /// The row as text to print: lines of symbols, or one image sequence.
  public func render(_ row: GridRowImage) -> [String] {
    render(
      row.pixels, type: CHAFA_PIXEL_RGBA8_UNASSOCIATED, width: row.width, height: row.height,
      stride: row.width * 4)
  }

  /// Pixels of either kind scaled into the canvas, as text to print.
  func render(_ pixels: PicturePixels) -> [String] {
    switch pixels {
    case .rgb(let image): return render(image)
    case .rgba(let bytes, let width, let height):
      return render(
        bytes, type: CHAFA_PIXEL_RGBA8_UNASSOCIATED, width: width, height: height, stride: width * 4)
    }
  }

  /// A photo (or a part of one) scaled into the canvas, as text to print.
  public func render(_ image: RGBImage) -> [String] {
    // libchafa reads rows of RGB that are not a multiple of 4 bytes long wrongly (the
    // picture comes out gray and sheared): such rows are copied into padded ones.
    let rowBytes = image.width * 3
    guard rowBytes % 4 != 0 else {
      return render(
        image.pixels, type: CHAFA_PIXEL_RGB8, width: image.width, height: image.height, stride: rowBytes)
    }
    let stride = (rowBytes + 3) / 4 * 4
    var padded = [UInt8](repeating: 0, count: stride * image.height)
    defer { padded.wipe() }
    image.pixels.withUnsafeBufferPointer { source in
      padded.withUnsafeMutableBufferPointer { target in
        for row in 0..<image.height {
          target.baseAddress!.advanced(by: row * stride).update(
            from: source.baseAddress! + row * rowBytes, count: rowBytes)
        }
      }
    }
    return render(padded, type: CHAFA_PIXEL_RGB8, width: image.width, height: image.height, stride: stride)
  }

  private func render(_ pixels: [UInt8], type: ChafaPixelType, width: Int, height: Int, stride: Int)
    -> [String]
  {
    pixels.withUnsafeBufferPointer { pixels in
      chafa_canvas_draw_all_pixels(
        canvas, type, pixels.baseAddress, Int32(width), Int32(height), Int32(stride))
    }
    guard let printed = chafa_canvas_print(canvas, graphics.termInfo) else { return [] }
    defer { g_string_free(printed, 1) }
    let text = String(cString: printed.pointee.str)
    if graphics.pixelMode == CHAFA_PIXEL_MODE_SYMBOLS {
      return text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) + "\u{1B}[0m" }
    }
    return [text]
  }
}
