/// How many terminal columns text takes: wide East Asian characters and emoji take two,
/// combining marks and zero-width characters none.
public enum DisplayWidth {
  public static func of(_ text: String) -> Int {
    text.reduce(0) { $0 + of($1) }
  }

  public static func of(_ character: Character) -> Int {
    guard let first = character.unicodeScalars.first else { return 0 }
    if character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation })
      || character.unicodeScalars.contains(where: { $0.value == 0xFE0F })
    {
      return 2
    }
    let value = first.value
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
    switch first.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    return isWide(value) ? 2 : 1
  }

  /// East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, main blocks).
  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
      0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD,
      0x30000...0x3FFFD:
      return true
    default:
      return false
    }
  }

  /// `text` cut to at most `width` columns, ending in "…" when cut.
  public static func truncate(_ text: String, to width: Int) -> String {
    guard width > 0 else { return "" }
    if of(text) <= width { return text }
    var result = ""
    var used = 0
    for character in text {
      let w = of(character)
      if used + w > width - 1 { break }
      result.append(character)
      used += w
    }
    return result + "…"
  }

  /// `text` cut or padded with spaces to exactly `width` columns.
  public static func pad(_ text: String, to width: Int) -> String {
    let cut = truncate(text, to: width)
    return cut + String(repeating: " ", count: max(0, width - of(cut)))
  }
}
