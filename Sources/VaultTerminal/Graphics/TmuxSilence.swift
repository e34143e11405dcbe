/// Why tmux told vault nothing of the pane it runs in.
public enum TmuxSilence: Error, Equatable, Sendable {
  /// tmux could not be asked (no TMUX_PANE, no tmux in PATH) or said it could not tell
  /// (a failure status): as when it was never asked.
  case unavailable
  /// It gave no answer within `TmuxPane.answerTimeout`, and was stopped.
  case noAnswerInTime
  /// Its answer is no pane's place: fields missing, or numbers no terminal has.
  case unusableAnswer
}
