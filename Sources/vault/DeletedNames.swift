import VaultTerminal

/// How `delete` and `trash empty` name what they deleted: every item when the output is not
/// a terminal (a script or a log keeps them all), else a screenful, then how many more and
/// where the rest are listed.
enum DeletedNames {
  /// Prints `lines`, cut to a screenful on a terminal with `rest` said of the others
  /// ("… and 12 more (vault trash lists them)"); nil `rest`: never cut.
  static func print(_ lines: [String], rest: ((Int) -> String)?) {
    var shown = lines
    if let rest, let room = screenful, lines.count > room {
      shown = Array(lines.prefix(room - 1)) + [rest(lines.count - room + 1)]
    }
    for line in shown { printLine(line) }
  }

  /// The lines a terminal shows with room left for the question's echo and the summary;
  /// nil when the output is not a terminal.
  static var screenful: Int? {
    guard Terminal.stdoutIsTerminal else { return nil }
    return max(3, (Terminal.rows ?? 24) - 4)
  }
}
