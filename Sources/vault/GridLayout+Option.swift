import VaultCore
import VaultTerminal

extension GridLayout {
  /// The layout of `perRow` photos a row in `columns`, or the error that says which
  /// `--per-row` fits.
  static func forOption(columns: Int, perRow: Int) throws -> GridLayout {
    do {
      return try GridLayout(columns: columns, perRow: perRow)
    } catch {
      switch error {
      case .noCells: throw VaultError.invalidArgument("--per-row must be at least 1")
      case .tooMany(_, _, _, let most):
        throw VaultError.invalidArgument(
          "\(error); "
            + (most >= 1 ? "use --per-row \(most) or less, or a wider terminal" : "use a wider terminal"))
      }
    }
  }
}
