import ArgumentParser
import VaultTerminal

/// `view --mode`: the display modes that draw pictures, so that `view --help` and shell
/// completion offer only what `view` accepts. `text` still parses, so that `validate`
/// refuses it with a hint rather than the parser's list.
struct PictureMode: ExpressibleByArgument {
  let mode: DisplayMode

  init(_ mode: DisplayMode) {
    self.mode = mode
  }

  init?(argument: String) {
    guard let mode = DisplayMode(rawValue: argument) else { return nil }
    self.mode = mode
  }

  static var allValueStrings: [String] {
    DisplayMode.allCases.filter { $0 != .text }.map(\.rawValue)
  }

  var defaultValueDescription: String { mode.rawValue }
}
