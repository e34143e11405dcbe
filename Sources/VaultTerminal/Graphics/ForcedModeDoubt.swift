/// Why a drawing mode asked for by name may not show pictures on this terminal.
public enum ForcedModeDoubt: Error, Equatable, Sendable {
  /// Inside tmux: vault does not use tmux's passthrough, and tmux shows no such pictures
  /// (it takes kitty's commands for the pane's title).
  case insideTmux
  /// The terminal answered vault's questions and did not say it draws such pictures.
  case notDeclared
}
