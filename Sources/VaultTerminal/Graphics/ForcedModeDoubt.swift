/// Why a drawing mode asked for by name may not show pictures on this terminal.
public enum ForcedModeDoubt: Error, Equatable, Sendable {
  /// Inside tmux with its passthrough off: tmux shows no such pictures (it takes kitty's
  /// commands for the pane's title).
  case insideTmux
  /// Inside tmux, iTerm2's pictures, which vault does not send through its passthrough.
  case notThroughTmux
  /// The terminal answered vault's questions and did not say it draws such pictures.
  case notDeclared
}
