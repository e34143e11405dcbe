import CQREncode

/// A QR code of a short text (libqrencode, byte mode, error correction M) and its drawing
/// for a terminal.
public struct QRCode: Sendable {
  /// Modules a side, without the quiet zone.
  public let size: Int
  /// Row-major, `true` for a dark module.
  public let modules: [Bool]

  /// Light modules around the code: the standard asks for 4, but a terminal's own margin
  /// adds to it, and 2 keep the code of a long address within 80 columns.
  public static let quietZone = 2

  /// Nil when libqrencode cannot encode the text (too long for any QR version).
  public init?(_ text: String) {
    guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
    defer { QRcode_free(code) }
    let width = Int(code.pointee.width)
    size = width
    // Bit 0 of each byte is the module's colour; the other bits say what part of the
    // symbol it belongs to.
    modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
  }

  /// Whether the module at `row`, `column` (counted with the quiet zone) is dark.
  public func isDark(row: Int, column: Int) -> Bool {
    let y = row - Self.quietZone
    let x = column - Self.quietZone
    guard y >= 0, y < size, x >= 0, x < size else { return false }
    return modules[y * size + x]
  }

  /// Columns the drawing takes: one a module, quiet zone included.
  public var drawnWidth: Int { size + 2 * Self.quietZone }

  /// The code as terminal lines, two module rows a line with the half blocks ▀ ▄ █, drawn
  /// black on white with explicit colours so that it reads the same on dark and light
  /// terminals (phone cameras expect dark modules on a light ground).
  public func terminalLines() -> [String] {
    let blackOnWhite = "\u{1B}[38;5;16;48;5;231m"
    let reset = "\u{1B}[0m"
    let side = drawnWidth
    var lines: [String] = []
    for top in stride(from: 0, to: side, by: 2) {
      var line = blackOnWhite
      for column in 0..<side {
        let upper = isDark(row: top, column: column)
        let lower = top + 1 < side && isDark(row: top + 1, column: column)
        switch (upper, lower) {
        case (true, true): line += "█"
        case (true, false): line += "▀"
        case (false, true): line += "▄"
        case (false, false): line += " "
        }
      }
      lines.append(line + reset)
    }
    return lines
  }
}
