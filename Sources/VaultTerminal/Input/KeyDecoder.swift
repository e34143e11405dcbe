import VaultCore

/// A key the full-screen viewer reacts to.
enum Key: Equatable {
  /// A printable character (a letter, a digit, a space, an emoji…).
  case character(Character)
  case up, down, left, right, pageUp, pageDown, home, end
  case enter, escape, backspace, tab
  /// Ctrl with a letter, as the lowercase letter (Ctrl-D is `.control("d")`), or with
  /// `@`, `\`, `]`, `^`, `_`. Ctrl-C, Ctrl-Z and Ctrl-\ never arrive: they are signals.
  case control(Character)
  /// Text pasted while bracketed paste is on, as one event: it goes only into a prompt's
  /// answer, never to the keys (tabs and line breaks become spaces).
  case paste(String)
  /// The marks around pasted text; only the decoder sees them.
  case pasteStart, pasteEnd
}

/// Turns the bytes a terminal sends into keys. Bytes may arrive in any pieces: a sequence
/// split across reads is held until it is complete. Sequences it does not know (function
/// keys, mouse reports, replies to queries, Alt with a key) are dropped whole, so their
/// bytes never pass for typed characters.
///
/// A lone ESC cannot be told from the start of a sequence by its bytes; the reader calls
/// `timeOut()` when no byte followed it within a short time, and the ESC becomes `.escape`.
struct KeyDecoder {
  private enum State: Equatable {
    case ground
    /// After ESC.
    case escape
    /// After ESC [: parameter and intermediate bytes until a final byte.
    case controlSequence
    /// After ESC O: one final byte.
    case singleShift
    /// Inside an OSC, DCS, APC, PM or SOS string, until ST (ESC \) or BEL.
    case string
    /// An ESC inside such a string: `\` ends it.
    case stringEscape
    /// Inside a UTF-8 character that needs `remaining` more bytes.
    case utf8(remaining: Int)
  }

  private var state = State.ground
  /// The parameter and intermediate bytes of the control sequence being read.
  private var parameters: [UInt8] = []
  private var utf8: [UInt8] = []
  /// A CR was the last byte: an LF right after it is the same Enter (CR LF newline mode).
  private var afterCarriageReturn = false

  /// A longer control sequence is none the viewer knows: it is dropped.
  private static let longestParameters = 32

  /// The byte that opened the string being skipped (`_` for an APC), and its first bytes.
  private var stringIntroducer: UInt8 = 0
  private var stringBytes: [UInt8] = []
  /// The most of a string kept: kitty's replies are an id and a short message.
  static let longestKeptString = 256

  /// kitty's replies to graphics commands (an APC string starting with `G`), without the
  /// `G`, in the order they came: `i=3,p=1;ENOENT:…`. Taken with `takeGraphicsReplies()`.
  private var graphicsReplies: [String] = []

  mutating func takeGraphicsReplies() -> [String] {
    defer { graphicsReplies = [] }
    return graphicsReplies
  }

  /// The cell size the terminal reported in answer to `CSI 16 t` (`CSI 6 ; height ; width t`).
  private(set) var cellSizeReport: PixelSize?

  mutating func clearCellSizeReport() {
    cellSizeReport = nil
  }

  /// Whether bytes of an unfinished sequence (or a lone ESC) are waiting.
  var isIncomplete: Bool { state != .ground }

  /// The keys that `bytes` complete.
  mutating func feed(_ bytes: [UInt8]) -> [Key] {
    var decoded: [Key] = []
    for byte in bytes { feed(byte, into: &decoded) }
    var keys: [Key] = []
    for key in decoded {
      switch key {
      case .pasteStart: pasted = ""
      case .pasteEnd:
        if let pasted { keys.append(.paste(pasted)) }
        pasted = nil
      case .character(let character) where pasted != nil: pasted?.append(character)
      case .enter where pasted != nil, .tab where pasted != nil: pasted?.append(" ")
      default:
        // Inside a paste, other keys (arrows, controls) are dropped: they were text.
        if pasted == nil { keys.append(key) }
      }
    }
    return keys
  }

  /// The text of a paste not yet ended, or nil outside one.
  private var pasted: String?

  /// No byte came within the escape timeout: a lone ESC is the Escape key; an unfinished
  /// sequence is dropped.
  mutating func timeOut() -> [Key] {
    defer { reset() }
    return state == .escape ? [.escape] : []
  }

  private mutating func reset() {
    state = .ground
    parameters.removeAll(keepingCapacity: true)
    utf8.removeAll(keepingCapacity: true)
  }

  private mutating func feed(_ byte: UInt8, into keys: inout [Key]) {
    let followsCarriageReturn = afterCarriageReturn
    afterCarriageReturn = false
    switch state {
    case .ground: ground(byte, followsCarriageReturn: followsCarriageReturn, into: &keys)
    case .escape: escape(byte, into: &keys)
    case .controlSequence: controlSequence(byte, into: &keys)
    case .singleShift: singleShift(byte, into: &keys)
    case .string: string(byte)
    case .stringEscape: stringEscape(byte, into: &keys)
    case .utf8(let remaining): utf8Continuation(byte, remaining: remaining, into: &keys)
    }
  }

  /// The byte after ESC.
  private mutating func escape(_ byte: UInt8, into keys: inout [Key]) {
    switch byte {
    case UInt8(ascii: "["):
      parameters.removeAll(keepingCapacity: true)
      state = .controlSequence
    case UInt8(ascii: "O"):
      state = .singleShift
    case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "^"), UInt8(ascii: "X"):
      stringIntroducer = byte
      stringBytes.removeAll(keepingCapacity: true)
      state = .string
    case 0x1B:
      // ESC ESC: the first was a lone Escape; the second may start a sequence.
      keys.append(.escape)
    default:
      // Alt with a key, or a sequence the viewer does not use.
      state = .ground
    }
  }

  /// A byte of a control sequence (after ESC [).
  private mutating func controlSequence(_ byte: UInt8, into keys: inout [Key]) {
    switch byte {
    case 0x20...0x3F:
      // Past the longest the viewer knows, the sequence is only counted as too long.
      if parameters.count <= Self.longestParameters { parameters.append(byte) }
    case 0x40...0x7E:
      if let key = controlSequenceKey(final: byte) { keys.append(key) }
      reset()
    case 0x1B:
      reset()
      state = .escape
    default:
      // A control or non-ASCII byte cannot be inside a sequence: drop what was read.
      reset()
    }
  }

  /// The byte after ESC O.
  private mutating func singleShift(_ byte: UInt8, into keys: inout [Key]) {
    switch byte {
    case 0x1B:
      state = .escape
    default:
      if let key = Self.cursorKey(byte) { keys.append(key) }
      state = .ground
    }
  }

  /// A byte of a string the viewer skips (OSC, DCS, APC, PM, SOS).
  private mutating func string(_ byte: UInt8) {
    switch byte {
    case 0x07: endString()
    case 0x1B: state = .stringEscape
    default: if stringBytes.count < Self.longestKeptString { stringBytes.append(byte) }
    }
  }

  /// A string ended (ST or BEL): kept if it is a reply of kitty's graphics protocol.
  private mutating func endString() {
    state = .ground
    if stringIntroducer == UInt8(ascii: "_"), stringBytes.first == UInt8(ascii: "G"),
      graphicsReplies.count < Self.longestKeptString
    {
      graphicsReplies.append(String(decoding: stringBytes.dropFirst(), as: UTF8.self))
    }
    stringBytes.removeAll(keepingCapacity: true)
  }

  /// The byte after ESC inside such a string.
  private mutating func stringEscape(_ byte: UInt8, into keys: inout [Key]) {
    if byte == UInt8(ascii: "\\") {
      endString()
    } else {
      // The string was cut short by a new sequence.
      state = .escape
      feed(byte, into: &keys)
    }
  }

  /// A continuation byte of a character, `remaining` of them still expected.
  private mutating func utf8Continuation(_ byte: UInt8, remaining: Int, into keys: inout [Key]) {
    guard byte & 0xC0 == 0x80 else {
      // Not a continuation byte: the character is broken; the byte starts afresh.
      reset()
      feed(byte, into: &keys)
      return
    }
    utf8.append(byte)
    if remaining > 1 {
      state = .utf8(remaining: remaining - 1)
      return
    }
    let text = String(decoding: utf8, as: UTF8.self)
    reset()
    if text.count == 1, let character = text.first, text.unicodeScalars.allSatisfy(Self.isPrintable) {
      keys.append(.character(character))
    }
  }

  private mutating func ground(_ byte: UInt8, followsCarriageReturn: Bool, into keys: inout [Key]) {
    switch byte {
    case 0x1B:
      state = .escape
    case 0x0D:
      keys.append(.enter)
      afterCarriageReturn = true
    case 0x0A:
      if !followsCarriageReturn { keys.append(.enter) }
    case 0x7F, 0x08:
      keys.append(.backspace)
    case 0x09:
      keys.append(.tab)
    case 0x00:
      keys.append(.control("@"))
    case 0x01...0x1A:
      keys.append(.control(Character(Unicode.Scalar(byte - 0x01 + UInt8(ascii: "a")))))
    case 0x1C...0x1F:
      keys.append(.control(Character(Unicode.Scalar(byte - 0x1C + UInt8(ascii: "\\")))))
    case 0x20...0x7E:
      keys.append(.character(Character(Unicode.Scalar(byte))))
    case 0xC2...0xDF:
      utf8 = [byte]
      state = .utf8(remaining: 1)
    case 0xE0...0xEF:
      utf8 = [byte]
      state = .utf8(remaining: 2)
    case 0xF0...0xF4:
      utf8 = [byte]
      state = .utf8(remaining: 3)
    default:
      // A stray continuation byte or one that is never valid UTF-8.
      break
    }
  }

  /// The key a complete `ESC [ parameters final` sequence stands for, if the viewer uses it.
  private mutating func controlSequenceKey(final: UInt8) -> Key? {
    guard parameters.count <= Self.longestParameters,
      parameters.allSatisfy({ (0x30...0x3B).contains($0) })
    else {
      // Private markers (`<` of mouse reports, `?` of mode reports) and intermediates.
      return nil
    }
    let numbers = parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map {
      $0.isEmpty ? nil : Int(String(decoding: $0, as: UTF8.self))
    }
    switch final {
    case UInt8(ascii: "~"):
      // `CSI n ; modifiers ~`: the modifiers (Shift, Ctrl…) do not change the key.
      switch numbers.first ?? nil {
      case 200: return .pasteStart
      case 201: return .pasteEnd
      case 1, 7: return .home
      case 4, 8: return .end
      case 5: return .pageUp
      case 6: return .pageDown
      default: return nil
      }
    case UInt8(ascii: "t"):
      if numbers.count == 3, numbers[0] == 6, let height = numbers[1], let width = numbers[2], height > 0,
        width > 0
      {
        cellSizeReport = PixelSize(width: width, height: height)
      }
      return nil
    default:
      // `CSI A` or, with modifiers, `CSI 1 ; 5 A`.
      return Self.cursorKey(final)
    }
  }

  /// The key of a cursor sequence's final byte (after `ESC [` or `ESC O`).
  private static func cursorKey(_ final: UInt8) -> Key? {
    switch final {
    case UInt8(ascii: "A"): return .up
    case UInt8(ascii: "B"): return .down
    case UInt8(ascii: "C"): return .right
    case UInt8(ascii: "D"): return .left
    case UInt8(ascii: "H"): return .home
    case UInt8(ascii: "F"): return .end
    default: return nil
    }
  }

  private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .surrogate, .unassigned, .privateUse, .lineSeparator, .paragraphSeparator: return false
    default: return true
    }
  }
}
