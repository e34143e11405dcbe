/// Text that came from a file name or a record, made safe to show on a terminal: control
/// characters and the bidirectional overrides are shown escaped (`\x1b`, `\n`, `\u202e`)
/// instead of being emitted, so a photo's name can neither move the cursor, retitle or
/// clear the terminal, forge lines, nor reorder what is shown around it.
public enum TerminalSafeText {
  /// `text` with every unsafe character replaced by its escaped form; safe text is
  /// returned as it is. Escaping twice changes nothing more.
  public static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if isUnsafe(scalar) {
        result += escape(scalar)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// A JSON text with every unsafe character that JSON allows raw inside strings (C1
  /// controls, DEL, the bidi overrides, line separators) written as a `\uXXXX` escape, so
  /// that the value read back is exactly the same and the text prints safely. JSON
  /// encoders escape C0 controls inside strings, so the tabs, line feeds and carriage
  /// returns left are JSON's own white space, and are kept.
  public static func json(_ text: String) -> String {
    let isUnsafeInJSON = { (scalar: Unicode.Scalar) in
      isUnsafe(scalar) && scalar != "\n" && scalar != "\t" && scalar != "\r"
    }
    guard text.unicodeScalars.contains(where: isUnsafeInJSON) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
      if isUnsafeInJSON(scalar) {
        result += "\\u" + hex(scalar.value, digits: 4)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// C0 and C1 controls, DEL, the bidirectional embeddings, overrides, isolates and
  /// marks, and the Unicode line and paragraph separators.
  public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: return true
    case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }

  private static func escape(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x09: return "\\t"
    case 0x00...0xFF: return "\\x" + hex(scalar.value, digits: 2)
    default: return "\\u" + hex(scalar.value, digits: 4)
    }
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}
