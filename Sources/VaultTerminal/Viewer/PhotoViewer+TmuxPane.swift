extension PhotoViewer {
  /// After a resize inside tmux, where the pane is on the terminal outside is asked again:
  /// a pane resized by a neighbour, or split, moves.
  func followTmuxPane() {
    guard graphics.tmux != nil else { return }
    graphics.askTmuxPaneAgain()
    (drawing as? KittyPictureDrawing)?.tmux = graphics.tmux
  }
}
