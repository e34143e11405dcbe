/// When the screen cannot be taken over.
extension FullScreenTerminal {
  /// Why the screen cannot be taken over (the program words what to do instead).
  public struct Unavailable: Error, CustomStringConvertible {
    /// "stdout is not a terminal", "/dev/tty cannot be opened (…)".
    public let reason: String
    public var description: String { reason }
  }

  /// Throws `Unavailable` unless both stdin and stdout are terminals.
  static func requireTerminals(stdin: Bool, stdout: Bool) throws {
    guard !stdin || !stdout else { return }
    let which = !stdin && !stdout ? "stdin and stdout are not" : !stdin ? "stdin is not" : "stdout is not"
    throw Unavailable(reason: which + " a terminal")
  }
}
