import Foundation

/// The rules for an album's name, checked wherever a name comes in (the CLI, the viewer's
/// prompt) before anything is written.
public enum AlbumName {
  /// The longest name, in characters as shown.
  public static let maximumLength = 100
  /// The longest name in UTF-8 bytes: what a folder's name may take on Linux file systems
  /// (`export --by-album` makes one of each album).
  public static let maximumBytes = PathComponent.maximumBytes

  /// `text` in Unicode normalization form C (so that `é` typed either way names one
  /// album), once it is known to be a name an album can have: not empty, no longer than
  /// `maximumLength`, without control characters or bidirectional overrides (see
  /// `TerminalSafeText`), no space at either end, and no `/` byte (`export --by-album`
  /// makes a folder of each album), nor anything that reads as `.` or `..` (see
  /// `PathComponent`): a name made here is a folder's name as it is.
  public static func normalized(_ text: String) throws -> String {
    let name = text.precomposedStringWithCanonicalMapping
    let refuse = { (reason: String) in
      VaultError.invalidAlbumName(TerminalSafeText.escaped(text), reason: reason)
    }
    if name.isEmpty { throw refuse("an album name cannot be empty") }
    if name.unicodeScalars.contains(where: TerminalSafeText.isUnsafe) {
      throw refuse("it holds a control character")
    }
    if name.count > maximumLength {
      throw refuse("it is \(name.count) characters long; an album name has at most \(maximumLength)")
    }
    if name.utf8.count > maximumBytes {
      throw refuse(
        "it takes \(name.utf8.count) bytes in UTF-8; an album name takes at most \(maximumBytes) (it becomes a folder's name on export)"
      )
    }
    if name.first!.isWhitespace || name.last!.isWhitespace { throw refuse("it begins or ends with a space") }
    if PathComponent.holdsSeparator(name) { throw refuse("it holds a '/' (albums become folders on export)") }
    if PathComponent.readsAsDots(name) { throw refuse("'.' and '..' name folders, not albums") }
    return name
  }
}
