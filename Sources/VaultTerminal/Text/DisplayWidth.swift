import CUtf8proc

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

  /// East Asian Wide and Fullwidth, as utf8proc reads Unicode's EastAsianWidth.txt (with
  /// emoji presented wide), so that the table follows each Unicode version.
  private static func isWide(_ value: UInt32) -> Bool {
    utf8proc_charwidth(utf8proc_int32_t(bitPattern: value)) >= 2
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
