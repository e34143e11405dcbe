/// The rules for every name vault turns into one file or folder name: export's files and
/// album folders, the mount's names, and album names when they are made. Names come from
/// records and journals that anyone holding the password may have written, so they are
/// judged on their UTF-8 bytes, never on Characters: `/` followed by a combining mark
/// (U+0301) is one Character that is not "/", yet its first byte is a `/`.
///
/// A name is kept byte for byte where it can be (spaces at either end, NFC or NFD, right-
/// to-left text), and otherwise changed as little as keeps it recognisable, never refused,
/// so that export and the mount show every photo:
/// - `/`, NUL, the other control characters and the bidirectional controls
///   (`TerminalSafeText.isUnsafe`: an override can show `gpj.exe` as `exe.jpg`) each become
///   `_`;
/// - a name longer than 255 bytes is cut on a grapheme boundary (a scalar boundary when
///   not even its first grapheme fits), keeping its extension;
/// - a name that reads as nothing, `.` or `..` once combining marks and invisible format
///   characters are set aside (`..` + U+0301 shows as `..`), and spaces at its ends, gets
///   a fallback name.
public enum PathComponent {
  /// A file name's limit in bytes on Linux file systems.
  public static let maximumBytes = 255
  /// The longest extension (after its dot) kept whole when a name is shortened or numbered;
  /// a longer tail after a dot is part of the name.
  static let maximumExtensionBytes = 16

  /// `name` as one path component (see above), or `fallback` (itself safe and short) when
  /// it reads as nothing, `.` or `..`.
  public static func safe(_ name: String, fallback: String) -> String {
    // Most names are plain ASCII and come back as they are, with no new string built
    // (`vault mount` names every photo in several folders at each load).
    if isPlainASCII(name) { return name }
    var cleaned = name
    if name.unicodeScalars.contains(where: isReplaced) {
      var scalars = String.UnicodeScalarView()
      scalars.append(contentsOf: name.unicodeScalars.map { isReplaced($0) ? "_" : $0 })
      cleaned = String(scalars)
    }
    let shortened = shortened(cleaned, toFit: maximumBytes)
    return readsAsDots(shortened) ? fallback : shortened
  }

  /// `name` (a safe one) as the `number`th of its kind in a folder: `IMG.jpg`, then
  /// `IMG (1).jpg`, `IMG (2).jpg`…, the name before the suffix cut to keep within 255
  /// bytes. With `keepingExtension` false (folders), the suffix goes at the end.
  public static func numbered(_ name: String, _ number: Int, keepingExtension: Bool = true) -> String {
    guard number > 0 else { return name }
    let (stem, dotExtension) = keepingExtension ? split(name) : (name, "")
    let suffix = " (\(number))"
    let room = maximumBytes - suffix.utf8.count - dotExtension.utf8.count
    return prefix(of: stem, fitting: room) + suffix + dotExtension
  }

  /// What follows the last `/` byte of `path`, or of `\` too with `backslashes` (a path a
  /// browser sent from Windows): cut on bytes, since a separator followed by a combining
  /// mark is one Character that is not the separator. Neither byte is ever part of another
  /// scalar, so what is left is valid UTF-8.
  public static func lastComponent(of path: String, backslashes: Bool = false) -> String {
    let bytes = path.utf8
    let cut = bytes.lastIndex { $0 == UInt8(ascii: "/") || (backslashes && $0 == UInt8(ascii: "\\")) }
    return cut.map { String(path[bytes.index(after: $0)...]) } ?? path
  }

  /// `name` without its extension (see `split`).
  public static func stem(of name: String) -> String {
    split(name).stem
  }

  /// Whether `name` holds a `/` byte (whatever Character it is part of).
  public static func holdsSeparator(_ name: String) -> Bool {
    name.utf8.contains(UInt8(ascii: "/"))
  }

  /// Whether `name` shows as nothing, `.` or `..`: only dots (at most two, together), with
  /// combining marks, invisible format characters, and white space at either end.
  public static func readsAsDots(_ name: String) -> Bool {
    var dots = 0
    var spaceAfterDot = false
    for scalar in name.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .nonspacingMark, .enclosingMark, .format: continue
      default: break
      }
      if scalar.properties.isWhitespace {
        spaceAfterDot = dots > 0
      } else if scalar == ".", !spaceAfterDot, dots < 2 {
        dots += 1
      } else {
        return false
      }
    }
    return true
  }

  /// A scalar that never goes into a name as it is.
  static func isReplaced(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "/" || TerminalSafeText.isUnsafe(scalar)
  }

  /// Printable ASCII without `/`, within the length limit, and not only dots and spaces:
  /// a name that is safe as it is.
  private static func isPlainASCII(_ name: String) -> Bool {
    // Read as contiguous bytes: a String's UTF-8 view, iterated, is decoded byte by byte.
    var name = name
    return name.withUTF8 { isPlainASCII($0) }
  }

  /// Whether the UTF-8 bytes of a name are a plain ASCII name (`safe` gives it back as it is).
  static func isPlainASCII(_ name: some Sequence<UInt8>) -> Bool {
    var count = 0
    var onlyDotsAndSpaces = true
    for byte in name {
      guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "/") else { return false }
      if byte != UInt8(ascii: "."), byte != UInt8(ascii: " ") { onlyDotsAndSpaces = false }
      count += 1
    }
    return count <= maximumBytes && !onlyDotsAndSpaces
  }

  /// `name` cut to at most `limit` bytes, keeping its extension.
  private static func shortened(_ name: String, toFit limit: Int) -> String {
    guard name.utf8.count > limit else { return name }
    let (stem, dotExtension) = split(name)
    return prefix(of: stem, fitting: limit - dotExtension.utf8.count) + dotExtension
  }

  /// The name and its extension with its dot (`IMG_1`, `.HEIC`): what follows the last dot
  /// that is not the name's first byte, when it is 1 to 16 bytes; else no extension.
  private static func split(_ name: String) -> (stem: String, dotExtension: String) {
    let bytes = name.utf8
    guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex else { return (name, "") }
    let extensionBytes = bytes.distance(from: dot, to: bytes.endIndex) - 1
    guard (1...maximumExtensionBytes).contains(extensionBytes) else { return (name, "") }
    // A "." byte is always a scalar of its own, so both halves are valid UTF-8.
    return (String(name[..<dot]), String(name[dot...]))
  }

  /// The longest start of `text` within `limit` bytes: whole graphemes, or whole scalars
  /// when not even the first grapheme fits (a letter with hundreds of combining marks).
  private static func prefix(of text: String, fitting limit: Int) -> String {
    guard text.utf8.count > limit else { return text }
    var end = text.startIndex
    var bytes = 0
    for character in text {
      let size = character.utf8.count
      if bytes + size > limit { break }
      bytes += size
      end = text.index(after: end)
    }
    if end != text.startIndex { return String(text[..<end]) }
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      bytes += UTF8.width(scalar)
      if bytes > limit { break }
      scalars.append(scalar)
    }
    return String(scalars)
  }
}
