import ArgumentParser
import VaultCore
import VaultTerminal

/// `--mode`, read by the argument parser from its raw value.
extension DisplayMode: ExpressibleByArgument {}

extension TerminalGraphics {
  /// The graphics `--mode` asks for, refused inside tmux where tmux would not pass them on
  /// (it shows no such pictures and takes kitty's commands for the pane's title), with a
  /// warning on stderr when the terminal did not say it draws them, and a hint when tmux's
  /// passthrough is off.
  static func forOption(_ mode: DisplayMode) throws -> TerminalGraphics? {
    let graphics: TerminalGraphics?
    do {
      graphics = try resolve(mode)
    } catch ForcedModeDoubt.insideTmux {
      throw VaultError.invalidArgument(
        "--mode \(mode.rawValue) draws nothing inside tmux unless its passthrough is on "
          + "(tmux set -g allow-passthrough on; else tmux takes kitty's commands for the pane's title); "
          + "use --mode symbols, or leave --mode out")
    } catch ForcedModeDoubt.notThroughTmux {
      throw VaultError.invalidArgument(
        "--mode \(mode.rawValue) draws nothing inside tmux (vault does not send its pictures through tmux); "
          + "use --mode symbols, or leave --mode out")
    }
    if graphics?.picturesNeedPassthrough == true {
      Diagnostics.hint(
        "drawn in symbols: for pictures inside tmux, turn on its passthrough (tmux set -g allow-passthrough on)"
      )
    }
    if let silence = graphics?.unknownTmuxPane { warnOfUnknownPane(silence) }
    if graphics?.doubt == .notDeclared {
      Diagnostics.warning(
        "this terminal did not say it shows \(mode.rawValue) pictures; if text fills the screen, "
          + "use --mode symbols, or leave --mode out")
    }
    return graphics
  }

  /// Why tmux's pane got symbols: it did not say where the pane is.
  private static func warnOfUnknownPane(_ silence: TmuxSilence) {
    switch silence {
    case .noAnswerInTime:
      Diagnostics.warning("drawn in symbols: tmux did not say within a second where vault's pane is")
    case .unusableAnswer:
      Diagnostics.warning("drawn in symbols: tmux's answer on where vault's pane is makes no sense")
    case .unavailable: break
    }
  }
}
