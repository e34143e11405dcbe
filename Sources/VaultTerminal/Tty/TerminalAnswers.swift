import VaultCore

/// What a terminal said to `TerminalProbe`'s queries. Every field is nil (or false) when
/// the terminal did not answer that query.
public struct TerminalAnswers: Equatable, Sendable {
  /// A character cell in pixels (`CSI 16 t`).
  public var cellSize: PixelSize?
  /// The attributes of the primary device attributes (`CSI c`); nil until they came.
  public var deviceAttributes: [Int]?
  /// Sixel colour registers in use and the most the terminal allows (XTSMGRAPHICS).
  public var colourRegisters: Int?
  public var maximumColourRegisters: Int?
  /// The sixel image size in pixels now (often the window's) and the largest one the
  /// terminal shows: a larger image is dropped (XTSMGRAPHICS).
  public var sixelGeometry: PixelSize?
  public var maximumSixelGeometry: PixelSize?
  /// Whether the terminal kept a direct RGB foreground as RGB (DECRQSS of SGR).
  public var directColour = false
  /// Whether the terminal answered kitty's graphics query with OK.
  public var kittyGraphics = false
  /// The row (1-based) the cursor is on (`CSI 6 n`).
  public var cursorRow: Int?

  public init() {}

  /// Attribute 4 of the device attributes: sixel graphics.
  public var sixel: Bool { deviceAttributes?.contains(4) ?? false }

  /// The largest sixel image to send: the maximum the terminal reports, else its current
  /// geometry, else nil (unknown: nothing is split).
  public var largestSixel: PixelSize? { maximumSixelGeometry ?? sixelGeometry }
}

/// Reads a terminal's answers to `TerminalProbe`'s queries out of its input, which may
/// also hold keys typed meanwhile. The bytes are untrusted: each sequence is bounded, a
/// malformed answer is ignored, and bytes that are no answer are kept as `typed`, in order.
struct TerminalAnswerReader {
  private(set) var answers = TerminalAnswers()
  /// Input that was no answer (keys typed during the probe), as it came.
  private(set) var typed: [UInt8] = []
  /// The device attributes came: every answer the terminal gives comes before them.
  var finished: Bool { answers.deviceAttributes != nil }
  /// In the middle of a sequence: its end is on the way.
  var isInSequence: Bool { state != .ground }

  private enum State {
    case ground, escape, csi, string
    /// An over-long sequence, dropped up to its end.
    case skippingControlSequence, skippingString
  }
  private var state = State.ground
  /// The sequence being read, from its ESC.
  private var sequence: [UInt8] = []
  /// The XTSMGRAPHICS answers in the order asked: registers read, registers maximum, then
  /// geometry read and geometry maximum; each item's two come in that order.
  private var registerAnswers = 0
  private var geometryAnswers = 0
  /// A longer sequence is no answer to these queries: it is dropped.
  static let longestSequence = 256

  mutating func feed(_ bytes: [UInt8]) {
    for byte in bytes { feed(byte) }
  }

  private mutating func feed(_ byte: UInt8) {
    switch state {
    case .ground:
      if byte == 0x1B {
        sequence = [byte]
        state = .escape
      } else {
        typed.append(byte)
      }
    case .escape:
      if byte == 0x1B {
        // A lone Escape typed before an answer: a key; the new ESC starts the answer.
        typed.append(byte)
        return
      }
      sequence.append(byte)
      switch byte {
      case UInt8(ascii: "["): state = .csi
      case UInt8(ascii: "P"), UInt8(ascii: "_"): state = .string
      default:
        // Alt with a key, or a lone ESC: a key.
        typed += sequence
        state = .ground
      }
    case .csi:
      if byte == 0x1B {
        // Cut short by a new sequence: what was read of it is dropped, never given back.
        sequence = [byte]
        state = .escape
        return
      }
      sequence.append(byte)
      if (0x40...0x7E).contains(byte) {
        if !readControlSequence() { typed += sequence }
        state = .ground
      } else if sequence.count > Self.longestSequence {
        state = .skippingControlSequence
      }
    case .string:
      sequence.append(byte)
      if sequence.suffix(2) == [0x1B, UInt8(ascii: "\\")] {
        readString()
        state = .ground
      } else if sequence.count > Self.longestSequence {
        state = .skippingString
      }
    case .skippingControlSequence:
      if byte == 0x1B {
        sequence = [byte]
        state = .escape
      } else if (0x40...0x7E).contains(byte) {
        state = .ground
      }
    case .skippingString:
      if sequence.last == 0x1B && byte == UInt8(ascii: "\\") { state = .ground }
      sequence = [byte]
    }
  }

  /// The numbers of `text` split at `;` (empty ones are nil).
  private static func numbers(_ text: ArraySlice<UInt8>) -> [Int?] {
    text.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map {
      $0.count <= 9 ? Int(String(decoding: $0, as: UTF8.self)) : nil
    }
  }

  /// Takes in a complete `ESC [ … final`; false when it is no answer (a key).
  private mutating func readControlSequence() -> Bool {
    let final = sequence.last!
    let body = sequence[2..<(sequence.count - 1)]
    let isPrivate = body.first == UInt8(ascii: "?")
    let values = Self.numbers(isPrivate ? body.dropFirst() : body)
    switch (isPrivate, final) {
    case (true, UInt8(ascii: "c")):
      answers.deviceAttributes = values.compactMap { $0 }
    case (false, UInt8(ascii: "t")):
      guard values.count == 3, values[0] == 6, let height = values[1], let width = values[2], height > 0,
        width > 0
      else { return true }
      answers.cellSize = PixelSize(width: width, height: height)
    case (true, UInt8(ascii: "S")):
      readGraphicsAttributes(values)
    case (false, UInt8(ascii: "R")):
      guard values.count == 2, let row = values[0], row > 0 else { return false }
      answers.cursorRow = row
    default:
      return false
    }
    return true
  }

  /// `CSI ? item ; status ; values S`, status 0 for success.
  private mutating func readGraphicsAttributes(_ values: [Int?]) {
    guard values.count >= 2, let item = values[0] else { return }
    let succeeded = values[1] == 0
    let numbers = values.dropFirst(2).compactMap { $0 }.filter { $0 > 0 }
    if item == 1 {
      defer { registerAnswers += 1 }
      guard succeeded, numbers.count == 1 else { return }
      if registerAnswers == 0 { answers.colourRegisters = numbers[0] }
      if registerAnswers == 1 { answers.maximumColourRegisters = numbers[0] }
    } else if item == 2 {
      defer { geometryAnswers += 1 }
      guard succeeded, numbers.count == 2 else { return }
      let size = PixelSize(width: numbers[0], height: numbers[1])
      if geometryAnswers == 0 { answers.sixelGeometry = size }
      if geometryAnswers == 1 { answers.maximumSixelGeometry = size }
    }
  }

  /// A complete DCS or APC string (`ESC P … ESC \`, `ESC _ … ESC \`).
  private mutating func readString() {
    let body = Array(sequence[2..<(sequence.count - 2)])
    let text = String(decoding: body, as: UTF8.self)
    if sequence[1] == UInt8(ascii: "_") {
      // kitty: `ESC _ G i=31 ; OK ESC \`
      if text.hasPrefix("Gi=\(TerminalProbe.kittyQueryID);") {
        answers.kittyGraphics = text.hasSuffix(";OK")
      }
      return
    }
    // DECRQSS: `ESC P 1 $ r <SGR> m ESC \`, the foreground as the terminal keeps it.
    guard text.hasPrefix("1$r"), text.hasSuffix("m") else { return }
    let sgr = text.dropFirst(3).dropLast().split(whereSeparator: { $0 == ";" || $0 == ":" }).map {
      Int($0)
    }
    let given = TerminalProbe.probeColour
    guard let start = sgr.firstIndex(of: 38), sgr.count > start + 1, sgr[start + 1] == 2 else { return }
    answers.directColour = Array(sgr[(start + 2)...].suffix(3)) == [given.red, given.green, given.blue]
  }
}
